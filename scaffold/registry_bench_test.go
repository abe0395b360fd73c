package scaffold_test

import (
	"fmt"
	"testing"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
)

// benchProject has n kinds of 20 fields each (every type and modifier
// family), owning a ConfigMap and a Deployment.
func benchProject(b *testing.B, style scaffold.Style, n int) scaffold.Project {
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
		var fields []scaffold.Field
		for _, s := range specs {
			f, err := scaffold.ParseField(s)
			if err != nil {
				b.Fatal(err)
			}
			fields = append(fields, f)
		}
		var err error
		p, err = p.AddAPI(scaffold.FlagSource, scaffold.API{Group: "bench", Version: "v1", Kind: fmt.Sprintf("Kind%d", i), Plural: fmt.Sprintf("kind%ds", i),
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
				if _, err := scaffold.Render(p, style); err != nil {
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
					if _, err := scaffold.Render(p, style); err != nil {
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
		if err := scaffold.ValidateCRD(scaffold.BuildCRD("example.com", a)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRenderGrowsLinearly: a 50-kind project costs no more than about 50
// times a 1-kind one (allocations are counted: they track the work and,
// unlike time, do not depend on the machine's load).
func TestRenderGrowsLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 50-kind projects")
	}
	style := styles.All()[0]
	allocs := func(n int) int64 {
		return testing.Benchmark(func(b *testing.B) {
			p := benchProject(b, style, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := scaffold.Render(p, style); err != nil {
					b.Fatal(err)
				}
			}
		}).AllocsPerOp()
	}
	one, fifty := allocs(1), allocs(50)
	if fifty > 50*one {
		t.Errorf("50 kinds cost %d allocations, more than 50× the %d of one kind", fifty, one)
	}
}
