//go:build e2e

package kopf_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
	"github.com/opctl/opctl/scaffold/styles/python"
	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// kopfImitation loads the generated kopf project's handlers with a stand-in
// for Kopf (Kopf itself cannot be installed here) and drives them the way
// Kopf 1.44 does: create handlers for new objects, update handlers for a
// changed spec, event handlers for every watch event of their resource,
// timers firing as soon as an object appears (no initial delay) concurrently
// with the create handler, the status patch the handlers leave applied
// through the status subresource, and Kopf's finalizer added to every object
// of a resource with a timer, a daemon or a non-optional delete handler
// (kopf/on.py: requires_finalizer). A handler that raises TemporaryError is
// logged in one line and retried, as Kopf does; any other exception is what
// Kopf logs as an error with its traceback: the driver prints HANDLER ERROR,
// which fails the suite.
const kopfImitation = `
import datetime, importlib, logging, sys, threading, time, traceback, types
from kubernetes import config, dynamic
from kubernetes.client import api_client

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


kopf = types.ModuleType("kopf")
kopf.on = types.SimpleNamespace(**{w: _register(w) for w in ("resume", "create", "update", "delete", "event", "field")})
kopf.timer, kopf.daemon = _register("timer"), _register("daemon")
kopf.TemporaryError, kopf.PermanentError = TemporaryError, PermanentError
sys.modules["kopf"] = kopf

logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(message)s")
log = logging.getLogger("kopf-imitation")
config.load_kube_config()
resources = dynamic.DynamicClient(api_client.ApiClient()).resources
importlib.import_module(sys.argv[1])


def api(gvp):
    group, version, plural = gvp
    return resources.get(api_version=group + "/" + version if group else version, name=plural)


def handlers(what, gvp):
    return [(fn, opts) for w, r, fn, opts in registry if w == what and r == gvp]


def needs_finalizer(gvp):
    return bool(handlers("timer", gvp) or handlers("daemon", gvp)
                or [1 for _, opts in handlers("delete", gvp) if not opts.get("optional")])


def call(fn, gvp, body, **extra):
    """Call one handler as Kopf does and apply the patch it leaves."""
    status = {}
    patch = types.SimpleNamespace(status=status)
    meta = body["metadata"]
    try:
        fn(body=body, patch=patch, logger=log, name=meta["name"], namespace=meta.get("namespace"),
           meta=meta, spec=body.get("spec", {}), status=body.get("status", {}), uid=meta.get("uid"), **extra)
    except TemporaryError as e:
        # Kopf logs it in one line, no traceback, and retries after the delay.
        print("Handler %r failed temporarily: %s" % (fn.__name__, e), flush=True)
        return False
    except Exception as e:
        print("HANDLER ERROR in %s for %s: %s" % (fn.__name__, meta["name"], e), flush=True)
        traceback.print_exc(file=sys.stdout)
        sys.stdout.flush()
        return False
    finally:
        if status:
            api(gvp).subresources["status"].patch(body={"status": status}, name=meta["name"], namespace=meta.get("namespace"),
                                                  content_type="application/merge-patch+json")
    return True


def mark_handled(gvp, body):
    meta = body["metadata"]
    api(gvp).patch(body={"metadata": {"annotations": {LAST_HANDLED: str(meta.get("generation"))}}}, name=meta["name"],
                   namespace=meta.get("namespace"), content_type="application/merge-patch+json")


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


gvps = sorted({r for w, r, _, _ in registry if w != "event"})
event_gvps = sorted({r for w, r, _, _ in registry if w == "event"})
seen, timers_fired, children = {}, {}, {}
started = False
while True:
    for gvp in gvps:
        for body in api(gvp).get().to_dict()["items"]:
            meta = body["metadata"]
            uid, generation = meta["uid"], meta.get("generation")
            if meta.get("deletionTimestamp"):
                continue
            if uid not in seen:
                seen[uid] = generation
                if needs_finalizer(gvp) and FINALIZER not in (meta.get("finalizers") or []):
                    api(gvp).patch(body={"metadata": {"finalizers": (meta.get("finalizers") or []) + [FINALIZER]}},
                                   name=meta["name"], namespace=meta.get("namespace"),
                                   content_type="application/merge-patch+json")
                handled = LAST_HANDLED in (meta.get("annotations") or {})
                first = "resume" if handled and not started else "create"
                calls = [lambda fn=fn: call(fn, gvp, body) for fn, _ in handlers(first, gvp)]
                calls += [lambda fn=fn: call(fn, gvp, body) for fn, _ in handlers("timer", gvp)]
                timers_fired[uid] = time.monotonic()
                if calls and all(together(calls)):
                    mark_handled(gvp, body)
            elif generation != seen[uid]:
                seen[uid] = generation
                if all([call(fn, gvp, body) for fn, _ in handlers("update", gvp)]):
                    mark_handled(gvp, body)
            else:
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
                key = (handler, gvp, body["metadata"].get("namespace"), body["metadata"]["name"])
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
    started = True
    time.sleep(0.5)
`

// runKopfImitation drives the project's handlers with kopfImitation and
// the real kubernetes client, as the project's ServiceAccount.
func runKopfImitation(t *testing.T, dir, kubeconfig, _ string) func() {
	cmd := exec.Command(styletest.Python(t), "-c", kopfImitation, operatorModule(t, dir))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "PYTHONPATH="+dir)
	return styletest.StartProcess(t, cmd, "Forbidden", "HANDLER ERROR", "Traceback")
}

// operatorModule is the Python module of the project in dir that holds its
// handlers.
func operatorModule(t *testing.T, dir string) string {
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	return python.Package(p) + ".operator"
}
