package scaffold

import (
	"fmt"
	"testing"
)

// benchProject has n kinds of 20 fields each (every type and modifier
// family), owning a ConfigMap and a Deployment.
func benchProject(b *testing.B, style string, n int) Project {
	p := Project{Name: "bench", Domain: "example.com", Repo: "example.com/bench", Style: style, Versions: DefaultVersions(), ResyncSeconds: 60}
	specs := []string{
		"engine:string:enum=mysql,postgres:required", "version:string:maxLength=20", "storage:quantity:default=1Gi",
		"replicas:int32:min=1:max=5:default=1", "size:int64:min=0", "enabled:bool:default=true", "ttl:duration:default=1h",
		"since:datetime", "tags:[]string", "labels:map[string]string", "backup.schedule:string:default=@daily",
		"backup.retain:int32:min=1", "backup.target.bucket:string:required", "owner:string:column",
		"tier:string:enum=gold,silver,bronze", "region:string:pattern=^[a-z]+-[0-9]$", "cpu:quantity",
		"memory:quantity:default=512Mi", "paused:bool", "notes:string:minLength=0:maxLength=200",
	}
	for i := 0; i < n; i++ {
		var fields []Field
		for _, s := range specs {
			f, err := ParseField(s)
			if err != nil {
				b.Fatal(err)
			}
			fields = append(fields, f)
		}
		var err error
		p, err = p.AddAPI(FlagSource, API{Group: "bench", Version: "v1", Kind: fmt.Sprintf("Kind%d", i), Plural: fmt.Sprintf("kind%ds", i),
			Namespaced: true, Fields: fields, Owns: []string{"ConfigMap", "Deployment"}})
		if err != nil {
			b.Fatal(err)
		}
	}
	return p
}

// BenchmarkRenderSeed renders the seed example in every style.
func BenchmarkRenderSeed(b *testing.B) {
	for _, style := range StyleNames() {
		if style == "metacontroller-decorator" {
			continue // no CRD kinds: covered by its own golden case
		}
		b.Run(style, func(b *testing.B) {
			p := withStyle(benchSeed(b), style)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Render(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchSeed(b *testing.B) Project {
	p := Project{Name: "db-operator", Domain: "example.com", Repo: "example.com/db-operator", Style: "go", Versions: DefaultVersions()}
	var fields []Field
	for _, s := range []string{"engine:string:enum=mysql,postgres:required", "version:string", "storage:quantity", "replicas:int32:min=1:max=5:default=1"} {
		f, _ := ParseField(s)
		fields = append(fields, f)
	}
	p, err := p.AddAPI(FlagSource, API{Group: "myapp", Version: "v1", Kind: "Database", Plural: "databases", Namespaced: true, Fields: fields, Owns: []string{"ConfigMap"}})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkRenderKinds shows how rendering grows with the number of kinds.
func BenchmarkRenderKinds(b *testing.B) {
	for _, style := range []string{"go", "kopf"} {
		for _, n := range []int{1, 10, 50} {
			b.Run(fmt.Sprintf("%s/kinds=%d", style, n), func(b *testing.B) {
				p := benchProject(b, style, n)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := Render(p); err != nil {
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
	a := benchProject(b, "go", 1).APIs[0]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := ValidateCRD(BuildCRD("example.com", a)); err != nil {
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
	allocs := func(n int) int64 {
		return testing.Benchmark(func(b *testing.B) {
			p := benchProject(b, "go", n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Render(p); err != nil {
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
