package scaffold_test

import (
	"fmt"
	"testing"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// benchProject has n kinds of 20 fields each (every type and modifier
// family), owning a ConfigMap and a Deployment.
func benchProject(b testing.TB, style scaffold.Style, n int) scaffold.Project {
	p := newProject(style, "bench")
	specs := []string{
		"engine:string:enum=mysql,postgres:required", "version:string:maxLength=20", "storage:quantity:default=1Gi",
		"replicas:int32:min=1:max=5:default=1", "size:int64:min=0", "enabled:bool:default=true", "ttl:duration:default=1h",
		"since:datetime", "tags:[]string", "labels:map[string]string", "backup.schedule:string:default=@daily",
		"backup.retain:int32:min=1", "backup.target.bucket:string:required", "owner:string:column",
		"tier:string:enum=gold,silver,bronze", "region:string:pattern=^[a-z]+-[0-9]$", "cpu:quantity",
		"memory:quantity:default=512Mi", "paused:bool", "notes:string:minLength=0:maxLength=200",
	}
	for i := 0; i < n; i++ {
		var fields []api.Field
		for _, s := range specs {
			f, err := api.ParseField(s)
			if err != nil {
				b.Fatal(err)
			}
			fields = append(fields, f)
		}
		var err error
		p, err = p.AddAPI(input.FlagSource, api.API{Group: "bench", Version: "v1", Kind: fmt.Sprintf("Kind%d", i), Plural: fmt.Sprintf("kind%ds", i),
			Namespaced: true, Fields: fields, Owns: []string{"ConfigMap", "Deployment"}})
		if err != nil {
			b.Fatal(err)
		}
	}
	return p
}

// BenchmarkRenderSeed renders the seed example in every style.
func BenchmarkRenderSeed(b *testing.B) {
	for _, style := range styles.All() {
		p := seedProject(b, style)
		if style.ExistingKinds {
			p = decoratorSeed(b, style)
		}
		b.Run(style.Name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := render.Project(p, style); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRenderKinds shows how rendering grows with the number of kinds.
func BenchmarkRenderKinds(b *testing.B) {
	for _, style := range styles.All() {
		if style.ExistingKinds {
			continue
		}
		for _, n := range []int{1, 10, 50} {
			b.Run(fmt.Sprintf("%s/kinds=%d", style.Name, n), func(b *testing.B) {
				p := benchProject(b, style, n)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := render.Project(p, style); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCRD is the contract alone: build the CRD and run the API
// server's validation on it.
func BenchmarkCRD(b *testing.B) {
	a := benchProject(b, styles.All()[0], 1).APIs[0]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := api.ValidateCRD(api.BuildCRD("example.com", a)); err != nil {
			b.Fatal(err)
		}
	}
}

// renderBudget is how many allocations a render may make, in one place.
// Allocations, unlike time, do not depend on the machine's load, so the
// budget holds on any machine: a change that goes over it fails make test.
// Issue 38 asks for at most 30,000 for any seed and 1.5 M for 50 go kinds;
// each seed's budget is its figure of 2026-12-04 and about 5% more, so a
// style that grows must say so here. 2026-12-05: go (26,688), ansible
// (21,001) and the decorator (7,606) grew by the chart's values and the
// manager pod's NetworkPolicy; their budgets are those figures and about 5%
// more. 2026-12-06: every seed grew by about 300 with the workflow's kind
// job and test/e2e/prerequisites.sh; the decorator (8,178) and kopf
// (18,014) past their budgets, now 8,600 and 18,900. Later that day every
// seed grew with the OLM bundle (config/olm, its make targets and README
// section), less what two savings took back (sorting long YAML keys and
// the chart's renaming of strings no longer allocate): go 28,790, kopf
// 20,410, metacontroller 19,826, the decorator 10,239, shell-operator
// 17,646 and ansible 23,124; their budgets are those figures and about 5%
// more (go: issue 38's 30,000). 2026-12-08: every seed grew by the
// chart's platform values (a PodDisruptionBudget and a spread of the
// replicas, extra arguments and volumes, security contexts, the
// ServiceAccount's annotations, the image digest) and the README's table of
// what uninstalling leaves: go 29,643, kopf 21,020, metacontroller 20,626,
// the decorator 10,945, shell-operator 17,975, ansible 24,241; their
// budgets are those figures and about 5% more (go: still issue 38's 30,000).
var renderBudget = struct {
	seed map[string]float64 // per style
	// goFiftyKinds is benchProject's 50 kinds in the go style, which may
	// also cost no more than 50 times one kind.
	goFiftyKinds float64
}{
	seed: map[string]float64{
		"go": 30_000, "kopf": 22_100, "metacontroller": 21_700, "metacontroller-decorator": 11_500,
		"shell-operator": 18_900, "ansible": 25_500,
	},
	goFiftyKinds: 1_500_000,
}

func TestRenderBudget(t *testing.T) {
	render := func(p scaffold.Project, style scaffold.Style) float64 {
		return testing.AllocsPerRun(3, func() {
			if _, err := render.Project(p, style); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, style := range styles.All() {
		budget, ok := renderBudget.seed[style.Name]
		if !ok {
			t.Errorf("style %s has no seed budget in renderBudget", style.Name)
			continue
		}
		p := seedProject(t, style)
		if style.ExistingKinds {
			p = decoratorSeed(t, style)
		}
		if got := render(p, style); got > budget {
			t.Errorf("the %s seed renders with %.0f allocations, over its budget of %.0f (renderBudget)", style.Name, got, budget)
		}
	}
	if testing.Short() {
		return
	}
	style := styles.All()[0]
	if style.Name != "go" {
		t.Fatalf("styles.All()[0] is %s, not go", style.Name)
	}
	one, fifty := render(benchProject(t, style, 1), style), render(benchProject(t, style, 50), style)
	if fifty > renderBudget.goFiftyKinds {
		t.Errorf("50 go kinds render with %.0f allocations, over their budget of %.0f (renderBudget)", fifty, renderBudget.goFiftyKinds)
	}
	if fifty > 50*one {
		t.Errorf("50 kinds cost %.0f allocations, more than 50× the %.0f of one kind", fifty, one)
	}
}
