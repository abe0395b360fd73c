//go:build e2e

package ansible_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/styles"
)

// runRole runs what watches.yaml maps each kind to, with ansible-playbook
// through the local playbook beside it, as the Ansible operator would: for
// each object of the kind its selector picks, whenever it or its children
// change (kindLoop), through ownerInjectingProxy, with status written by
// k8sStatusStandIn, one kind beside the other; at the end a resync of
// every object must change nothing.
func runRole(t *testing.T, dir, kubeconfig, _ string) *styletest.Process {
	tools.RequireTools(t, "ansible (Debian package; it ships kubernetes.core)", "ansible-playbook")
	watches := readWatches(t, dir)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	injector := &ownerInjectingProxy{}
	injector.start(t, cfg)
	collections := t.TempDir()
	module := filepath.Join(collections, "ansible_collections/operator_sdk/util/plugins/modules/k8s_status.py")
	require.NoError(t, os.MkdirAll(filepath.Dir(module), 0o755))
	require.NoError(t, os.WriteFile(module, []byte(k8sStatusStandIn), 0o755))

	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	owns := map[string][]api.ChildKind{}
	for _, a := range p.APIs {
		owns[a.Kind] = a.OwnedKinds()
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failure error
	// The stop asks every kind for whole passes (a resync): the last must
	// change nothing.
	wanted := 0
	resynced := make([]int, len(watches))
	last := make([]map[string]string, len(watches))
	for i, w := range watches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := kindLoop{c: c, injector: injector, w: w, owns: owns[w.Kind], dir: dir, collections: collections, logf: t.Logf, seen: map[string]string{}}
			for ctx.Err() == nil {
				mu.Lock()
				resync := resynced[i] < wanted
				target := wanted
				mu.Unlock()
				pass, ran, err := k.pass(ctx, resync)
				mu.Lock()
				switch {
				case err != nil && failure == nil && ctx.Err() == nil:
					failure = err
				case err == nil && resync && ctx.Err() == nil:
					last[i], resynced[i] = pass, target
				}
				mu.Unlock()
				// A failed pass is retried, as the operator requeues: the
				// loop lives through an API server's restart, and the
				// failure fails the test at Stop.
				if err != nil || !ran {
					time.Sleep(time.Second)
				}
			}
		}()
	}
	kill := func() {
		cancel()
		wg.Wait()
	}
	return styletest.NewProcess(t, kill, func() {
		// Two whole passes of every kind after the checks: the second is
		// the run that must change nothing.
		mu.Lock()
		wanted++
		mu.Unlock()
		for round := 0; round < 2; round++ {
			if round == 1 {
				mu.Lock()
				wanted++
				mu.Unlock()
			}
			// A pass runs ansible-playbook once per object, seconds each on
			// two busy cores: it can take minutes.
			styletest.WaitWithin(t, 5*time.Minute, "a complete ansible-playbook pass of every kind", func() (bool, error) {
				mu.Lock()
				defer mu.Unlock()
				for _, n := range resynced {
					if n < wanted && failure == nil {
						return false, nil
					}
				}
				return true, nil
			})
		}
		kill()
		require.NoError(t, failure)
		runs := 0
		for _, pass := range last {
			for name, out := range pass {
				runs++
				assert.Regexp(t, `changed=0\s`, out, "the last run for %s must change nothing", name)
			}
		}
		require.NotZero(t, runs, "no ansible-playbook run")
	}, nil)
}

// kindLoop reconciles the objects of one watch as the operator's
// controller for the kind does: an object runs when it or one of its
// children changed since its last successful run (the operator's watches
// of the kind and of the dependent resources), or again after a failed
// run (the requeue).
type kindLoop struct {
	c                client.Client
	injector         *ownerInjectingProxy
	w                watchEntry
	owns             []api.ChildKind
	dir, collections string
	logf             func(string, ...any)
	// seen is each object's state (its resourceVersion and its
	// children's) when its last successful run started.
	seen map[string]string
}

// pass runs the playbook for every object that changed (every object,
// with all), up to one per CPU at once, as the operator's default
// --max-concurrent-reconciles; it returns each run's output by object and
// whether anything ran. An error is a run that failed for another reason
// than the checks' refused child or a deleted object.
func (k *kindLoop) pass(ctx context.Context, all bool) (map[string]string, bool, error) {
	pass := map[string]string{}
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(schema.GroupVersion{Group: k.w.Group, Version: k.w.Version}.String())
	list.SetKind(k.w.Kind + "List")
	var selected []client.ListOption
	if k.w.Selector != nil {
		selected = append(selected, client.MatchingLabels(k.w.Selector.MatchLabels))
	}
	children, err := k.children(ctx)
	if err == nil {
		err = k.c.List(ctx, list, selected...)
	}
	if err != nil {
		if ctx.Err() != nil { // the stop cancelling the call
			return pass, false, nil
		}
		return nil, false, err
	}
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		failure error
		slots   = make(chan struct{}, runtime.NumCPU())
		ran     bool
	)
	for _, o := range list.Items {
		key := o.GetNamespace() + "/" + o.GetName()
		state := o.GetResourceVersion() + " " + strings.Join(children[o.GetUID()], " ")
		if !all && k.seen[key] == state {
			continue
		}
		ran = true
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			out, err := runPlaybook(ctx, k.c, k.injector, k.w, k.dir, k.collections, &o, k.logf)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && failure == nil:
				failure = err
			case out != "":
				pass[k.w.Kind+" "+key] = out
				k.seen[key] = state
			}
		}()
	}
	wg.Wait()
	return pass, ran, failure
}

// children lists the objects of the kinds the watch's kind owns, as
// "kind/name@resourceVersion" by the UID of their controller, sorted.
func (k *kindLoop) children(ctx context.Context) (map[types.UID][]string, error) {
	out := map[types.UID][]string{}
	for _, c := range k.owns {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(c.APIVersion())
		list.SetKind(c.Kind + "List")
		if err := k.c.List(ctx, list); err != nil {
			return nil, err
		}
		for _, o := range list.Items {
			if ref := metav1.GetControllerOf(&o); ref != nil {
				out[ref.UID] = append(out[ref.UID], c.Kind+"/"+o.GetName()+"@"+o.GetResourceVersion())
			}
		}
	}
	for _, states := range out {
		sort.Strings(states)
	}
	return out, nil
}

// runPlaybook runs the playbook of w for o and returns its output; "" with
// no error for a run that does not count (the checks' refused child, an
// object deleted meanwhile, the stop).
func runPlaybook(ctx context.Context, c client.Client, injector *ownerInjectingProxy, w watchEntry, dir, collections string, o *unstructured.Unstructured, logf func(string, ...any)) (string, error) {
	kubeconfig, err := injector.kubeconfigFor(o)
	if err != nil {
		return "", err
	}
	// A run that hangs (a forked worker deadlocked on a busy machine) is
	// stopped and does not count: the loop runs the object again, as the
	// operator's runner would after its timeout.
	run, cancel := context.WithTimeout(ctx, playbookTimeout)
	defer cancel()
	cmd := styletest.GroupCommand(run, "ansible-playbook", w.localPlaybook(),
		"-e", "cr_name="+o.GetName(), "-e", "cr_namespace="+o.GetNamespace(), "-e", "_"+strings.ToLower(w.Kind)+"_record_status=true")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "K8S_AUTH_KUBECONFIG="+kubeconfig, "ANSIBLE_NOCOLOR=1",
		"ANSIBLE_COLLECTIONS_PATH="+collections+":/usr/share/ansible/collections:/usr/lib/python3/dist-packages")
	out, err := cmd.CombinedOutput()
	switch {
	case ctx.Err() != nil:
		return "", nil
	case run.Err() != nil:
		logf("ansible-playbook for %s stopped after %s", o.GetName(), playbookTimeout)
		return "", nil
	case err != nil && styletest.Refused(string(out)):
		// The check's own refused child: the operator logs the failed run
		// and requeues the object.
		logf("ansible-playbook for %s failed on the refused child", o.GetName())
		return "", nil
	case err != nil && apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(o), o.DeepCopy())):
		// Deleted while listed: the operator runs no role for an object
		// that is gone.
		return "", nil
	case err != nil:
		return "", fmt.Errorf("ansible-playbook: %v\n%s", err, out)
	}
	return string(out), nil
}

// playbookTimeout bounds one run of a playbook; one takes seconds.
const playbookTimeout = 3 * time.Minute

// watchEntry is what the imitation reads of a watches.yaml entry.
type watchEntry struct {
	Group, Version, Kind, Role, Playbook string
	Selector                             *metav1.LabelSelector
}

// localPlaybook is the playbook that runs the entry's role or playbook
// outside the operator, with the variables the operator passes.
func (w watchEntry) localPlaybook() string {
	if w.Playbook != "" {
		return strings.Replace(w.Playbook, "/run-", "/local-", 1)
	}
	return "playbooks/local-" + w.Role + ".yml"
}

func readWatches(t *testing.T, dir string) []watchEntry {
	b, err := os.ReadFile(filepath.Join(dir, "watches.yaml"))
	require.NoError(t, err)
	var watches []watchEntry
	require.NoError(t, yaml.Unmarshal(b, &watches))
	require.NotEmpty(t, watches, "watches.yaml maps no kind")
	return watches
}
