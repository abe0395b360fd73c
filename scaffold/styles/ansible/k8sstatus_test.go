//go:build e2e

package ansible_test

// k8sStatusStandIn stands in for operator_sdk.util.k8s_status (0.5.0),
// which cannot be installed here. It makes the module's requests: get the
// object, merge the given status over it (conditions by type, kept when
// they did not transition), and when that changes anything, merge-patch the
// status subresource; conditions given as the `conditions` parameter are
// validated (known keys only) as the module does; an API error fails it
// with the error's status, reason and body, as the module's does.
const k8sStatusStandIn = `#!/usr/bin/python3
import copy, os
from ansible.module_utils.basic import AnsibleModule
from kubernetes import config, dynamic
from kubernetes.client import api_client
from kubernetes.dynamic.exceptions import DynamicApiError

KEYS = {"type", "status", "reason", "message", "lastHeartbeatTime", "lastTransitionTime"}


def contains(obj, sub):
    if isinstance(sub, dict):
        return isinstance(obj, dict) and all(k in obj and contains(obj[k], v) for k, v in sub.items())
    return obj == sub


def api_error(e):
    return dict(status=e.status, reason=e.reason, body=e.body)


def main():
    m = AnsibleModule(argument_spec=dict(api_version=dict(required=True), kind=dict(required=True),
                                         name=dict(required=True), namespace=dict(), status=dict(type="dict"),
                                         conditions=dict(type="list", elements="dict"),
                                         replace=dict(type="bool", default=False),
                                         replace_lists=dict(type="bool", default=False)))
    status = dict(m.params["status"] or {})
    for c in m.params["conditions"] or []:
        unknown = set(c) - KEYS
        if unknown:
            m.fail_json(msg="The specified conditions failed to validate", error="unknown keys %s" % sorted(unknown))
    if m.params["conditions"]:
        status["conditions"] = m.params["conditions"]
    config.load_kube_config(os.environ.get("K8S_AUTH_KUBECONFIG"))
    res = dynamic.DynamicClient(api_client.ApiClient()).resources.get(api_version=m.params["api_version"], kind=m.params["kind"])
    try:
        instance = res.get(name=m.params["name"], namespace=m.params["namespace"]).to_dict()
    except DynamicApiError as e:
        m.fail_json(msg="Failed to retrieve requested object", error=api_error(e))
    old = instance.get("status") or {}
    new = copy.deepcopy(status)
    if old.get("conditions") and new.get("conditions"):
        merged = copy.deepcopy(old["conditions"])
        for cond in new["conditions"]:
            idx = next((i for i, c in enumerate(merged) if c.get("type") == cond["type"]), None)
            if idx is None:
                merged.append(cond)
            elif any(k != "lastTransitionTime" and v != merged[idx].get(k) for k, v in cond.items()):
                merged[idx] = cond
        new["conditions"] = merged
    if contains(old, new):
        m.exit_json(changed=False)
    instance["status"] = new
    try:
        res.status.patch(body=instance, content_type="application/merge-patch+json")
    except DynamicApiError as e:
        m.fail_json(msg="Failed to replace status: %s" % e, error=api_error(e))
    m.exit_json(changed=True)


main()
`
