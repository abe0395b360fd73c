//go:build e2e

package ansible_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// runRole runs what watches.yaml maps each kind to, with ansible-playbook
// through the local playbook beside it, as the Ansible operator would: for
// every object of the kind its selector picks, again and again, through
// ownerInjectingProxy, with status written by k8sStatusStandIn, one kind
// beside the other; at the end the last pass's run of each object must
// have changed nothing.
func runRole(t *testing.T, dir, kubeconfig, _ string) func() {
	styletest.RequireTools(t, "ansible (Debian package; it ships kubernetes.core)", "ansible-playbook")
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

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failure error
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if failure == nil {
			failure = err
		}
	}
	// One loop per watch, as the operator runs one controller per kind:
	// a slow kind holds up no other.
	passes := make([]int, len(watches))
	last := make([]map[string]string, len(watches))
	for i, w := range watches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				pass, err := runPass(ctx, c, injector, w, dir, collections, t.Logf)
				if err != nil {
					fail(err)
					return
				}
				if ctx.Err() != nil {
					return
				}
				mu.Lock()
				last[i] = pass
				passes[i]++
				mu.Unlock()
			}
		}()
	}
	return func() {
		// Let one whole pass of every kind start and finish after the
		// checks: that is the run that must change nothing.
		mu.Lock()
		targets := make([]int, len(passes))
		for i, n := range passes {
			targets[i] = n + 2
		}
		mu.Unlock()
		// A pass runs ansible-playbook once per object, seconds each on
		// two busy cores: two passes can take minutes.
		styletest.WaitWithin(t, 5*time.Minute, "a complete ansible-playbook pass of every kind", func() (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			for i, n := range passes {
				if n < targets[i] && failure == nil {
					return false, nil
				}
			}
			return true, nil
		})
		cancel()
		wg.Wait()
		require.NoError(t, failure)
		runs := 0
		for _, pass := range last {
			for name, out := range pass {
				runs++
				assert.Regexp(t, `changed=0\s`, out, "the last run for %s must change nothing", name)
			}
		}
		require.NotZero(t, runs, "no ansible-playbook run")
	}
}

// runPass runs the playbook of watch w once for every object it selects,
// and returns each run's output by object; an error is a run that failed
// for another reason than the checks' refused child or a deleted object.
func runPass(ctx context.Context, c client.Client, injector *ownerInjectingProxy, w watchEntry, dir, collections string, logf func(string, ...any)) (map[string]string, error) {
	pass := map[string]string{}
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(schema.GroupVersion{Group: w.Group, Version: w.Version}.String())
	list.SetKind(w.Kind + "List")
	var selected []client.ListOption
	if w.Selector != nil {
		selected = append(selected, client.MatchingLabels(w.Selector.MatchLabels))
	}
	if err := c.List(ctx, list, selected...); err != nil {
		if ctx.Err() != nil { // the stop cancelling the call
			return pass, nil
		}
		return nil, err
	}
	// As many objects at once as the operator's default
	// --max-concurrent-reconciles: the number of CPUs.
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		failure error
		slots   = make(chan struct{}, runtime.NumCPU())
	)
	for _, o := range list.Items {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			out, err := runPlaybook(ctx, c, injector, w, dir, collections, &o, logf)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && failure == nil:
				failure = err
			case out != "":
				pass[w.Kind+" "+o.GetNamespace()+"/"+o.GetName()] = out
			}
		}()
	}
	wg.Wait()
	return pass, failure
}

// runPlaybook runs the playbook of w for o and returns its output; "" with
// no error for a run that does not count (the checks' refused child, an
// object deleted meanwhile, the stop).
func runPlaybook(ctx context.Context, c client.Client, injector *ownerInjectingProxy, w watchEntry, dir, collections string, o *unstructured.Unstructured, logf func(string, ...any)) (string, error) {
	kubeconfig, err := injector.kubeconfigFor(o)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "ansible-playbook", w.localPlaybook(),
		"-e", "cr_name="+o.GetName(), "-e", "cr_namespace="+o.GetNamespace(), "-e", "opctl_write_status=true")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "K8S_AUTH_KUBECONFIG="+kubeconfig, "ANSIBLE_NOCOLOR=1",
		"ANSIBLE_COLLECTIONS_PATH="+collections+":/usr/share/ansible/collections:/usr/lib/python3/dist-packages")
	out, err := cmd.CombinedOutput()
	switch {
	case ctx.Err() != nil:
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
