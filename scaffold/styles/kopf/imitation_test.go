//go:build e2e

package kopf_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
	"github.com/opctl/opctl/scaffold/styles/python"
)

// kopfImitation loads the generated kopf project's handlers with a stand-in
// for Kopf (Kopf itself cannot be installed here) and drives them the way
// Kopf 1.44 does: create handlers for new objects, update handlers for a
// changed spec, event handlers for every watch event of their resource,
// with their labels and when filters, Events posted by kopf.info and
// kopf.warn as Kopf posts them, timers firing as soon as an object appears (no initial delay) concurrently
// with the create handler, the status patch the handlers leave applied
// through the status subresource, and Kopf's finalizer added to every object
// of a resource with a timer, a daemon or a non-optional delete handler
// (kopf/on.py: requires_finalizer). A handler that raises TemporaryError is
// logged in one line and, unless it is an event handler, run again after
// its delay with retry counting the attempts, as Kopf does; any other exception is what
// Kopf logs as an error with its traceback: the driver prints HANDLER ERROR,
// which fails the suite.
//
// Admission as Kopf 1.44 serves it (kopf/_core/engines/admission.py,
// kopf/_kits/webhooks.py): startup handlers configure
// settings.admission.server; with admission handlers and no server Kopf
// fails; the server serves HTTPS with the given certificate and calls the
// handlers whose id is the request's path and whose resource is the
// request's; the response allows unless a handler raised, the first
// AdmissionError's message and code are its status, and what the handlers
// put in patch becomes a JSON patch.
const kopfImitation = `
import base64, datetime, http.server, importlib, json, logging, ssl, sys, threading, time, traceback, types, urllib.parse
import urllib3
from kubernetes import config, dynamic
from kubernetes.client import api_client
from kubernetes.client.exceptions import ApiException
from kubernetes.dynamic.exceptions import NotFoundError

FINALIZER = "kopf.zalando.org/KopfFinalizerMarker"
LAST_HANDLED = "kopf.zalando.org/last-handled-configuration"
registry = []


class TemporaryError(Exception):
    def __init__(self, message="", delay=60):
        super().__init__(message)
        self.delay = delay


class PermanentError(Exception):
    pass


def _register(what):
    def options(group, version, plural, **opts):
        def decorate(fn):
            registry.append((what, (group, version, plural), fn, opts))
            return fn
        return decorate
    return options


class AdmissionError(PermanentError):
    def __init__(self, message="", code=500):
        super().__init__(message)
        self.code = code


class WebhookServer:
    def __init__(self, addr=None, port=None, certfile=None, pkeyfile=None, **_):
        self.addr, self.port, self.certfile, self.pkeyfile = addr, port, certfile, pkeyfile


def _register_startup():
    def decorate(fn):
        registry.append(("startup", None, fn, {}))
        return fn
    return decorate


kopf = types.ModuleType("kopf")
kopf.on = types.SimpleNamespace(**{w: _register(w) for w in ("resume", "create", "update", "delete", "event", "field", "validate", "mutate")})
kopf.on.startup = _register_startup
kopf.timer, kopf.daemon = _register("timer"), _register("daemon")
kopf.TemporaryError, kopf.PermanentError, kopf.AdmissionError = TemporaryError, PermanentError, AdmissionError
kopf.WebhookServer = WebhookServer


def _post_event(body, type, reason, message=""):
    """An Event as Kopf posts it (kopf/_cogs/clients/events.py)."""
    meta = body.get("metadata", {})
    ref = {k: v for k, v in (("apiVersion", body.get("apiVersion")), ("kind", body.get("kind")), ("name", meta.get("name")),
                             ("uid", meta.get("uid")), ("namespace", meta.get("namespace"))) if v}
    ref["namespace"] = ref.get("namespace") or "default"
    now = datetime.datetime.now(datetime.timezone.utc).isoformat()
    event = {"metadata": {"namespace": ref["namespace"], "generateName": "kopf-event-"}, "action": "Action?", "type": type,
             "reason": reason, "message": message, "reportingComponent": "kopf", "reportingInstance": "dev",
             "source": {"component": "kopf"}, "involvedObject": ref, "firstTimestamp": now, "lastTimestamp": now, "eventTime": now}
    try:
        resources.get(api_version="v1", kind="Event").create(body=event, namespace=ref["namespace"])
    except Exception as e:
        # Kopf logs a failed post as a warning and goes on.
        print("Failed to post an event. Ignoring and continuing. %s" % e, flush=True)


kopf.info = lambda objs, *, reason, message="": _post_event(objs, "Normal", reason, message)
kopf.warn = lambda objs, *, reason, message="": _post_event(objs, "Warning", reason, message)


def _each(objs):
    return objs if isinstance(objs, list) else [objs]


def _label(objs, labels, *, forced=False):
    """kopf.label (kopf/_kits/hierarchies.py): an existing label stays unless forced."""
    for obj in _each(objs):
        have = obj.setdefault("metadata", {}).setdefault("labels", {})
        for key, value in labels.items():
            if forced:
                have[key] = value
            else:
                have.setdefault(key, value)


def _adopt(objs, owner):
    """kopf.adopt: the owner's controller reference (once), its namespace
    unless the object has one, a name of the owner's unless it has one, and
    the owner's labels it has not (kopf/_kits/hierarchies.py)."""
    meta = owner.get("metadata", {})
    ref = {"controller": True, "blockOwnerDeletion": True, "apiVersion": owner.get("apiVersion"),
           "kind": owner.get("kind"), "name": meta.get("name"), "uid": meta.get("uid")}
    ref = {key: value for key, value in ref.items() if value is not None}
    for obj in _each(objs):
        obj_meta = obj.setdefault("metadata", {})
        refs = obj_meta.setdefault("ownerReferences", [])
        if not any(r.get("uid") == ref.get("uid") for r in refs):
            refs.append(ref)
        if not {"name", "generateName"} & set(obj_meta):
            obj_meta["generateName"] = meta.get("name") + "-"
        if obj_meta.get("namespace") is None:
            obj_meta["namespace"] = meta.get("namespace")
    _label(objs, meta.get("labels") or {})


kopf.label, kopf.adopt = _label, _adopt
sys.modules["kopf"] = kopf

logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(message)s")
log = logging.getLogger("kopf-imitation")
config.load_kube_config()
resources = dynamic.DynamicClient(api_client.ApiClient()).resources
importlib.import_module(sys.argv[1])


class _Meta:
    def __init__(self, d):
        self.labels = d.setdefault("labels", {})
        self.annotations = d.setdefault("annotations", {})


class Patch(dict):
    @property
    def meta(self):
        return _Meta(self.setdefault("metadata", {}))


def _json_patch(body, merge, path=""):
    """The JSON patch that applies the merge patch to body."""
    ops = []
    for key, value in merge.items():
        p = path + "/" + key.replace("~", "~0").replace("/", "~1")
        if value is None:
            if key in body:
                ops.append({"op": "remove", "path": p})
        elif isinstance(value, dict) and isinstance(body.get(key), dict):
            ops += _json_patch(body[key], value, p)
        elif isinstance(value, dict) and not value:
            continue
        elif body.get(key) != value:
            ops.append({"op": "add" if key not in body else "replace", "path": p, "value": value})
    return ops


def review(request, webhook):
    req = request["request"]
    res = req["resource"]
    gvp = (res["group"], res["version"], res["resource"])
    body = req.get("object") or req.get("oldObject")
    patch, warnings, errors = Patch(), [], []
    for what in ("mutate", "validate"):
        for fn, opts in handlers(what, gvp):
            if opts.get("id", fn.__name__) != webhook:
                continue
            meta = body["metadata"]
            try:
                fn(body=body, old=req.get("oldObject"), new=req.get("object"), patch=patch, warnings=warnings,
                   name=meta.get("name"), namespace=meta.get("namespace"), meta=meta, spec=body.get("spec", {}),
                   operation=req.get("operation"), userinfo=req.get("userInfo"), dryrun=bool(req.get("dryRun")), logger=log)
            except Exception as e:
                errors.append(e)
    response = {"uid": req.get("uid", ""), "allowed": not errors}
    if warnings:
        response["warnings"] = [str(w) for w in warnings]
    ops = _json_patch(body, patch)
    if ops:
        response["patch"] = base64.b64encode(json.dumps(ops).encode()).decode()
        response["patchType"] = "JSONPatch"
    errors.sort(key=lambda e: 0 if isinstance(e, AdmissionError) else 1 if isinstance(e, PermanentError) else 9)
    if errors:
        response["status"] = {"message": str(errors[0]) or repr(errors[0]),
                              "code": (errors[0].code if isinstance(errors[0], AdmissionError) else None) or 500}
    return {"apiVersion": request.get("apiVersion", "admission.k8s.io/v1"), "kind": "AdmissionReview", "response": response}


class AdmissionHandler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        # Kopf's route is /{id}; the API server adds ?timeout=, which is
        # not part of the path.
        webhook = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path[1:])
        out = json.dumps(review(request, webhook)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


settings = types.SimpleNamespace(admission=types.SimpleNamespace(server=None, managed=None))
for _, _, fn, _ in [r for r in registry if r[0] == "startup"]:
    fn(settings=settings, logger=log)
if [r for r in registry if r[0] in ("validate", "mutate")]:
    server = settings.admission.server
    if server is None:
        print("HANDLER ERROR: Admission handlers exist, but no admission server/tunnel is configured", flush=True)
        sys.exit(1)
    httpd = http.server.ThreadingHTTPServer((server.addr or "0.0.0.0", server.port), AdmissionHandler)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(server.certfile, server.pkeyfile)
    httpd.socket = tls.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()


def api(gvp):
    group, version, plural = gvp
    return resources.get(api_version=group + "/" + version if group else version, name=plural)


def handlers(what, gvp):
    return [(fn, opts) for w, r, fn, opts in registry if w == what and r == gvp]


def needs_finalizer(gvp):
    return bool(handlers("timer", gvp) or handlers("daemon", gvp)
                or [1 for _, opts in handlers("delete", gvp) if not opts.get("optional")])


# (handler, uid) -> the retries so far, and (when, fn, gvp) of the next one.
retries, due = {}, {}


def call(fn, gvp, body, **extra):
    """Call one handler as Kopf does and apply the patch it leaves."""
    status = {}
    patch = types.SimpleNamespace(status=status)
    meta = body["metadata"]
    key = (fn.__module__ + "." + fn.__name__, meta.get("uid"))
    try:
        fn(body=body, patch=patch, logger=log, name=meta["name"], namespace=meta.get("namespace"),
           meta=meta, spec=body.get("spec", {}), status=body.get("status", {}), uid=meta.get("uid"),
           retry=retries.get(key, 0), **extra)
    except TemporaryError as e:
        # Kopf logs it in one line, no traceback, and runs a resource
        # handler again after the delay, with retry counting the attempts
        # (an event handler is not retried).
        print("Handler %r failed temporarily: %s" % (fn.__name__, e), flush=True)
        if "event" not in extra:
            retries[key] = retries.get(key, 0) + 1
            due[key] = (time.monotonic() + e.delay, fn, gvp)
        return False
    except Exception as e:
        print("HANDLER ERROR in %s for %s: %s" % (fn.__name__, meta["name"], e), flush=True)
        traceback.print_exc(file=sys.stdout)
        sys.stdout.flush()
        return False
    finally:
        if status:
            try:
                api(gvp).subresources["status"].patch(body={"status": status}, name=meta["name"], namespace=meta.get("namespace"),
                                                      content_type="application/merge-patch+json")
            except NotFoundError:
                pass  # deleted meanwhile: Kopf lets it go

    retries.pop(key, None)
    due.pop(key, None)
    return True


def patch_meta(gvp, body, patch):
    """Merge-patch the object's metadata, as Kopf records its progress; an
    object deleted meanwhile is let go, as Kopf does."""
    meta = body["metadata"]
    try:
        api(gvp).patch(body={"metadata": patch}, name=meta["name"], namespace=meta.get("namespace"),
                       content_type="application/merge-patch+json")
    except NotFoundError:
        pass


def mark_handled(gvp, body):
    patch_meta(gvp, body, {"annotations": {LAST_HANDLED: str(body["metadata"].get("generation"))}})


def together(calls):
    """Run calls at the same moment, as Kopf's handlers and timers do."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(i, fn):
        barrier.wait()
        results[i] = fn()

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(calls)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return results


gvps = sorted({r for w, r, _, _ in registry if w not in ("event", "startup", "validate", "mutate")})
event_gvps = sorted({r for w, r, _, _ in registry if w == "event"})
seen, timers_fired, children = {}, {}, {}
started = False
while True:
    try:
        for gvp in gvps:
            for body in api(gvp).get().to_dict()["items"]:
                meta = body["metadata"]
                uid, generation = meta["uid"], meta.get("generation")
                if meta.get("deletionTimestamp"):
                    continue
                if uid not in seen:
                    seen[uid] = generation
                    if needs_finalizer(gvp) and FINALIZER not in (meta.get("finalizers") or []):
                        patch_meta(gvp, body, {"finalizers": (meta.get("finalizers") or []) + [FINALIZER]})
                    handled = LAST_HANDLED in (meta.get("annotations") or {})
                    first = "resume" if handled and not started else "create"
                    calls = [lambda fn=fn: call(fn, gvp, body) for fn, _ in handlers(first, gvp)]
                    calls += [lambda fn=fn: call(fn, gvp, body) for fn, _ in handlers("timer", gvp)]
                    timers_fired[uid] = time.monotonic()
                    if calls and all(together(calls)):
                        mark_handled(gvp, body)
                elif generation != seen[uid]:
                    seen[uid] = generation
                    # A new spec replaces any retry still pending.
                    for key in [k for k in due if k[1] == uid]:
                        del due[key], retries[key]
                    if all([call(fn, gvp, body) for fn, _ in handlers("update", gvp)]):
                        mark_handled(gvp, body)
                else:
                    for key, (at, fn, retried_gvp) in list(due.items()):
                        if key[1] == uid and retried_gvp == gvp and time.monotonic() >= at:
                            del due[key]
                            if call(fn, gvp, body):
                                mark_handled(gvp, body)
                    for fn, opts in handlers("timer", gvp):
                        if time.monotonic() - timers_fired[uid] >= opts.get("interval", 60):
                            timers_fired[uid] = time.monotonic()
                            call(fn, gvp, body)
        for gvp in event_gvps:
            for fn, opts in handlers("event", gvp):
                # Handlers of several kinds may share a name (child_changed).
                handler = fn.__module__ + "." + fn.__name__
                selector = ",".join("%s=%s" % kv for kv in sorted((opts.get("labels") or {}).items()))
                current = {}
                for body in api(gvp).get(label_selector=selector).to_dict()["items"]:
                    meta = body["metadata"]
                    # A when= filter sees the handler's keyword arguments.
                    when = opts.get("when")
                    if when and not when(body=body, meta=meta, name=meta["name"], namespace=meta.get("namespace"),
                                         labels=meta.get("labels") or {}, spec=body.get("spec", {}), logger=log):
                        continue
                    key = (handler, gvp, meta.get("namespace"), meta["name"])
                    current[key] = body
                    old = children.get(key)
                    if old is None or old["metadata"]["resourceVersion"] != body["metadata"]["resourceVersion"]:
                        kind = None if not started else ("ADDED" if old is None else "MODIFIED")
                        call(fn, gvp, body, type=kind, event={"type": kind, "object": body})
                for key, body in list(children.items()):
                    if key[0] == handler and key[1] == gvp and key not in current:
                        call(fn, gvp, body, type="DELETED", event={"type": "DELETED", "object": body})
                children = {k: v for k, v in children.items() if not (k[0] == handler and k[1] == gvp)}
                children.update(current)
    except (urllib3.exceptions.HTTPError, ApiException) as e:
        # Kopf retries what failed while the API server was away, and so
        # does a pass: the next one starts over.
        print("API request failed, retrying: %s" % e, flush=True)
        time.sleep(1)
        continue
    started = True
    time.sleep(0.5)
`

// runKopfImitation drives the project's handlers with kopfImitation and
// the real kubernetes client, as the project's ServiceAccount.
func runKopfImitation(t *testing.T, dir, kubeconfig, _ string) *styletest.Process {
	return styletest.StartProcess(t, kopfCommand(t, dir, kubeconfig), "Forbidden", "HANDLER ERROR", "Traceback", "API request failed")
}

// kopfCommand runs kopfImitation on the project in dir with kubeconfig.
func kopfCommand(t *testing.T, dir, kubeconfig string) *exec.Cmd {
	cmd := exec.Command(tools.Python(t), "-c", kopfImitation, operatorModule(t, dir))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "PYTHONPATH="+dir)
	return cmd
}

// operatorModule is the Python module of the project in dir that holds its
// handlers.
func operatorModule(t *testing.T, dir string) string {
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	return python.Package(p) + ".operator"
}
