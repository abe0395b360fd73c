//go:build e2e

package styletest

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// errorLine is how each runtime logs an error: zap's console and JSON
// encoders, Kopf's and Python's logging.
var errorLine = regexp.MustCompile(`(?m)("level":"error"|\tERROR\t|\[ERROR|ERROR:| ERROR )`)

// Conformance runs one style's checks in its real runtime and records each
// outcome; the table of checks is logged when the test ends.
type Conformance struct {
	style    string
	logs     func() string
	outcomes []outcome
}

type outcome struct {
	check string
	ok    bool
}

// NewConformance starts the checks of style in its real runtime.
func NewConformance(t *testing.T, style string) *Conformance {
	return newConformance(t, style, "real runtimes")
}

// newConformance starts the checks of style run by what runs them.
func newConformance(t *testing.T, style, by string) *Conformance {
	s := &Conformance{style: style, logs: func() string { return "" }}
	t.Cleanup(func() { t.Logf("%s (kube-apiserver v1.37.2):\n%s", by, s) })
	return s
}

// Runs names the runtime under check, whose log so far a failure shows.
func (s *Conformance) Runs(p *Process) { s.logs = p.Logs }

// Check runs one named check as a subtest and records whether it passed;
// a failure shows the runtime's log.
func (s *Conformance) Check(t *testing.T, name string, f func(t *testing.T)) bool {
	ok := t.Run(name, f)
	s.outcomes = append(s.outcomes, outcome{name, ok})
	if !ok {
		t.Logf("%s log:\n%s", s.style, s.logs())
	}
	return ok
}

// SteadyState checks, once the runtime has settled, that nothing changes
// objs for 30 s and that its log shows no error meanwhile.
func (s *Conformance) SteadyState(t *testing.T, c client.Client, objs ...*unstructured.Unstructured) {
	ctx := context.Background()
	time.Sleep(5 * time.Second) // let the runtime settle after the last change
	logStart := len(s.logs())
	s.Check(t, "no writes for 30 s when nothing changes", func(t *testing.T) {
		versions := map[*unstructured.Unstructured]string{}
		for _, o := range objs {
			require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(o), o))
			versions[o] = o.GetResourceVersion()
		}
		time.Sleep(30 * time.Second)
		for _, o := range objs {
			require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(o), o))
			assert.Equal(t, versions[o], o.GetResourceVersion(), "%s %s written", o.GetKind(), o.GetName())
		}
	})
	s.Check(t, "no ERROR lines in the runtime's log in steady state", func(t *testing.T) {
		steady := s.logs()[logStart:]
		assert.Empty(t, errorLine.FindAllString(steady, -1), "%s", steady)
	})
}

// String is the table of checks: pass or FAIL for each.
func (s *Conformance) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "| check | %s |\n|---|---|\n", s.style)
	for _, o := range s.outcomes {
		fmt.Fprintf(&b, "| %s | %s |\n", o.check, map[bool]string{true: "pass", false: "FAIL"}[o.ok])
	}
	return b.String()
}

// RequireOneControllerRef checks that child has exactly one
// ownerReference, a controller reference to owner.
func RequireOneControllerRef(t *testing.T, child, owner *unstructured.Unstructured) {
	refs := child.GetOwnerReferences()
	require.Len(t, refs, 1, "ownerReferences: %v", refs)
	assert.Equal(t, owner.GetUID(), refs[0].UID)
	assert.True(t, refs[0].Controller != nil && *refs[0].Controller)
}
