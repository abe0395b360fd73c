//go:build e2e

package styletest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opctl/opctl/internal/runtimecosts"
	"github.com/opctl/opctl/scaffold"
)

// BenchRuntime is Bench of the seed project's Database, started by start.
func BenchRuntime(t *testing.T, style scaffold.Style, start RealRuntime) {
	Bench(t, style.Name, seeded(style, start))
}

// Bench measures a style in its real runtime (make bench-runtimes): for
// each N of OPCTL_BENCH_N, against one API server that writes an audit
// log, a fresh runtime gets N objects made at once, then a change to all
// of them, then a minute alone. Each N's runtimecosts.Result is appended
// to OPCTL_BENCH_OUT as a JSON line; a larger N is not tried once one has
// not converged within OPCTL_BENCH_LIMIT.
func Bench(t *testing.T, style string, install Install) {
	out := os.Getenv("OPCTL_BENCH_OUT")
	if out == "" {
		t.Fatal("OPCTL_BENCH_OUT is not set: run `make bench-runtimes`, which sets it")
	}
	sizes, err := runtimecosts.ParseSizes(os.Getenv("OPCTL_BENCH_N"))
	require.NoError(t, err, "OPCTL_BENCH_N")
	limit := 10 * time.Minute
	if v := os.Getenv("OPCTL_BENCH_LIMIT"); v != "" {
		limit, err = time.ParseDuration(v)
		require.NoError(t, err, "OPCTL_BENCH_LIMIT")
	}
	dir := t.TempDir()
	policy, auditLog := filepath.Join(dir, "audit-policy.yaml"), filepath.Join(dir, "audit.log")
	// One event per request, when it ends (a watch: when it closes).
	require.NoError(t, os.WriteFile(policy, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived, ResponseStarted]\nrules:\n- level: Metadata\n"), 0o600))
	cluster := startAPIServer(t, "make bench-runtimes", func(a *envtest.APIServer) {
		a.Configure().Append("audit-policy-file", policy).Append("audit-log-path", auditLog)
	})
	self := username(t, cluster)
	for _, n := range sizes {
		var r runtimecosts.Result
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			r = benchOnce(t, cluster, install, fmt.Sprintf("bench-%d", n), n, limit, func(from, to time.Time) (int, map[string]int) {
				return countRequests(t, auditLog, self, from, to)
			})
		})
		r.Style, r.Date, r.Machine = style, time.Now().UTC().Format(time.DateOnly), machine()
		line, err := json.Marshal(r)
		require.NoError(t, err)
		f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		require.NoError(t, err)
		_, err = f.Write(append(line, '\n'))
		require.NoError(t, f.Close())
		require.NoError(t, err)
		t.Logf("%s", line)
		if !r.Converged() {
			t.Logf("%s did not converge %d objects within %s: no larger N", style, n, limit)
			break
		}
	}
}

// steadyWindow is how long a converged runtime is left alone for its
// writes per minute.
const steadyWindow = time.Minute

func benchOnce(t *testing.T, cluster *Cluster, install Install, ns string, n int, limit time.Duration, count func(from, to time.Time) (requests int, writes map[string]int)) runtimecosts.Result {
	ctx := context.Background()
	// The bench's own client is not held back by client-go's default
	// 5 requests a second: N objects are made as fast as the server takes
	// them.
	cfg := *cluster.Config
	cfg.QPS, cfg.Burst = 1000, 2000
	c, err := client.New(&cfg, client.Options{})
	require.NoError(t, err)
	target, start := install(t, cluster, ns)
	start(t)
	meter, err := startUsageMeter()
	require.NoError(t, err)
	r := runtimecosts.Result{N: n}
	nth := func(i int) *unstructured.Unstructured { return target.object(ns, fmt.Sprintf("bench-%04d", i), false) }
	created := time.Now()
	forEach(t, n, func(i int) error { return c.Create(ctx, nth(i)) })
	r.Ready, r.ReadySeconds = converge(t, ctx, c, target, ns, n, false, created, limit)
	end := time.Now()
	if r.Ready == n {
		changed := time.Now()
		forEach(t, n, func(i int) error { return changeSpec(ctx, c, nth(i), target.Change) })
		r.Changed, r.ChangeSeconds = converge(t, ctx, c, target, ns, n, true, changed, limit)
		end = time.Now()
	}
	usage, err := meter.stop()
	require.NoError(t, err)
	r.CPUSeconds = round(usage.CPU.Seconds(), 1)
	r.PeakRSSMiB = round(float64(usage.RSS)/(1<<20), 0)
	requests, _ := count(created, end)
	r.RequestsPerObject = round(float64(requests)/float64(n), 1)
	if r.Converged() {
		quiet := time.Now()
		time.Sleep(steadyWindow)
		_, writes := count(quiet, time.Now())
		total := 0
		for _, n := range writes {
			total += n
		}
		r.WritesPerMinute = round(float64(total)/steadyWindow.Minutes(), 1)
		t.Logf("writes in the minute after, by verb and resource: %v", writes)
	}
	return r
}

// converge polls until all n objects have converged or limit has passed
// since from: how many have, and when the last did.
func converge(t *testing.T, ctx context.Context, c client.Client, target Target, ns string, n int, changed bool, from time.Time, limit time.Duration) (int, float64) {
	done := 0
	for time.Since(from) < limit {
		var err error
		if done, err = target.Converged(ctx, c, ns, changed); err != nil {
			t.Logf("counting converged objects: %v", err)
		}
		if done == n {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	return done, round(time.Since(from).Seconds(), 1)
}

// forEach runs do for 0..n-1 on 16 workers.
func forEach(t *testing.T, n int, do func(i int) error) {
	work := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range 16 {
		wg.Go(func() {
			for i := range work {
				if err := do(i); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// countRequests counts the audit log's requests received in [from, to)
// from anyone but the bench (self) and the API server itself: the
// runtime's, as its ServiceAccount or, for Metacontroller, its admin; and
// of them the writes, but to its Lease.
func countRequests(t *testing.T, auditLog, self string, from, to time.Time) (requests int, writes map[string]int) {
	writes = map[string]int{}
	f, err := os.Open(auditLog)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e struct {
			Verb string `json:"verb"`
			User struct {
				Username string `json:"username"`
			} `json:"user"`
			Received  time.Time `json:"requestReceivedTimestamp"`
			ObjectRef struct {
				Resource string `json:"resource"`
			} `json:"objectRef"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), "audit log line")
		if e.User.Username == self || e.User.Username == "system:apiserver" || e.Received.Before(from) || !e.Received.Before(to) {
			continue
		}
		requests++
		switch e.Verb {
		case "create", "update", "patch", "delete", "deletecollection":
			// A leader's lease renewals (every 2 s) are the same for any
			// number of objects: the idle writes are the others.
			if e.ObjectRef.Resource != "leases" {
				writes[e.Verb+" "+e.ObjectRef.Resource]++
			}
		}
	}
	require.NoError(t, sc.Err())
	return requests, writes
}

// username is the name the API server knows the bench's own client by.
func username(t *testing.T, cluster *Cluster) string {
	clientset, err := kubernetes.NewForConfig(cluster.Config)
	require.NoError(t, err)
	review, err := clientset.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	require.NoError(t, err)
	return review.Status.UserInfo.Username
}

// machine names the CPU, cores and memory the figures were taken on.
func machine() string {
	model, memory := "unknown CPU", ""
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(raw), "MemTotal: %d kB", &kb); err == nil {
			memory = fmt.Sprintf(", %d GiB", (kb+(1<<19))>>20)
		}
	}
	return fmt.Sprintf("%d cores (%s)%s, %s", runtime.NumCPU(), model, memory, runtime.GOOS)
}

func round(v float64, places int) float64 {
	scale := math.Pow10(places)
	return math.Round(v*scale) / scale
}
