package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/apitest"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/objpath"
)

func TestConformanceCases(t *testing.T) {
	tests := []struct {
		name     string
		fields   []string
		rules    []string
		owns     []string
		cases    []string
		rejected map[string]string
	}{
		{
			name:   "the seed",
			fields: []string{"engine:string:enum=mysql,postgres:required", "version:string", "storage:quantity", "replicas:int32:min=1:max=5:default=1"},
			owns:   []string{"ConfigMap"},
			cases: []string{"sample", "defaults", "engine-postgres", "engine-not-in-enum", "engine-missing",
				"replicas-beyond-min", "replicas-max", "replicas-beyond-max", "tricky-values", "spec-change"},
			rejected: map[string]string{
				"engine-not-in-enum":  `spec.engine: Unsupported value: "not-mysql": supported values: "mysql", "postgres"`,
				"replicas-beyond-min": "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1",
				"replicas-beyond-max": "spec.replicas: Invalid value: 6: spec.replicas in body should be less than or equal to 5",
				"engine-missing":      "spec.engine: Required value",
			},
		},
		{
			// An enum value a CEL rule refuses is no case, nor is a missing
			// field the rule reads (two reasons); a value outside the enum
			// is refused for that reason alone, so it is a case.
			name:   "a rule across fields",
			fields: []string{"tier:string:enum=free,paid:required"},
			rules:  []string{"self.tier != 'paid'#paid is closed"},
			cases:  []string{"sample", "tier-not-in-enum"},
		},
		{
			name:   "no children: no spec change",
			fields: []string{"size:int64:min=0"},
			cases:  []string{"sample", "defaults", "size-beyond-min"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := apitest.SeedAPI()
			a.Fields, a.Owns = apitest.MustFields(t, tt.fields...), tt.owns
			for _, r := range tt.rules {
				a.Rules = append(a.Rules, api.ParseRule(r))
			}
			p := bareProject()
			cases := conformanceCases(p, a, mustContract(t, p, a))
			var names []string
			for _, c := range cases {
				names = append(names, c.Name)
				if want, ok := tt.rejected[c.Name]; ok {
					assert.Equal(t, want, c.C.Rejected, c.Name)
				}
				if c.C.Rejected == "" {
					assert.ElementsMatch(t, RoundTripAll(DesiredChildren(p, a, c.C.Object)), Reconciled(c.C.Children, c.C.Observed), c.Name)
				}
			}
			assert.Equal(t, tt.cases, names)
		})
	}
}

func mustContract(t *testing.T, p scaffold.Project, a api.API) contract {
	t.Helper()
	c, err := contractOf(p.Domain, a)
	require.NoError(t, err)
	return c
}

// A spec change over a Job: its spec cannot change, so the case expects
// the Job of the sample, and the other children of the new spec.
func TestConformanceSpecChangeKeepsAJob(t *testing.T) {
	a := apitest.SeedAPI()
	a.Fields, a.Owns = apitest.MustFields(t, "engine:string:enum=mysql,postgres"), []string{"ConfigMap", "Job"}
	cases := conformanceCases(bareProject(), a, mustContract(t, bareProject(), a))
	c := cases[len(cases)-1]
	require.Equal(t, "spec-change", c.Name)
	require.Len(t, c.C.Children, 2)
	assert.Equal(t, RoundTripAll(DesiredChildren(bareProject(), a, c.C.Object))[0], c.C.Children[0], "the ConfigMap of the new spec")
	assert.NotEqual(t, c.C.Observed[0], c.C.Children[0])
	assert.Equal(t, c.C.Observed[1], c.C.Children[1], "the Job as it was")
	assert.NotEqual(t, RoundTripAll(DesiredChildren(bareProject(), a, c.C.Object))[1], c.C.Children[1])
	assert.True(t, jsonEqual(2, c.C.Object["metadata"].(map[string]any)["generation"]))
}

// A case's object is named <singular>-<case>, and its children carry that
// Name in a label value: at most MaxNameLength characters.
func TestCaseNameFitsALabel(t *testing.T) {
	a := apitest.SeedAPI()
	name := caseName(a, "aFieldWithAVeryLongNameThatKeepsGoingWellPastWhatALabelHolds", "beyond-max")
	assert.Equal(t, api.MaxNameLength, len(a.Singular()+"-"+name))
	assert.Equal(t, "engine-not-in-enum", caseName(a, "engine", "not-in-enum"))
	assert.Equal(t, "tier-1-0", caseName(a, "tier", "1.0"))
}

// TestValueMatchesObject holds kindValidator.Value to what Object finds in
// the sample with that one value changed, messages included.
func TestValueMatchesObject(t *testing.T) {
	a := apitest.SeedAPI()
	a.Fields = apitest.MustFields(t, "engine:string:enum=mysql,postgres:required", "region:string:pattern=^[a-z]+-[0-9]$",
		"version:string:maxLength=5", "replicas:int32:min=1:max=5:default=1", "backup.retain:int32:min=1:max=9",
		"backup.target.bucket:string:required:minLength=3", "size:int64:rule=self % 2 == 0#size is even",
		"name:string:immutable", "tags:[]string", "labels:map[string]string", "cpu:quantity", "ttl:duration", "on:bool")
	sample, err := api.BuildSample("example.com", a)
	require.NoError(t, err)
	validator := api.NewKindValidator(api.BuildCRD("example.com", a))
	values := []any{"", "mysql", "not-mysql", "eu-1", "toolongvalue", "1Gi", "1h", "x", int64(0), int64(1), int64(7), int64(10), int64(-1), 1.5,
		true, []any{"a", 1}, map[string]any{"k": "v"}, map[string]any{"k": int64(1)}, nil}
	for _, f := range a.Fields {
		for _, v := range values {
			obj := stored(RoundTrip(sample)).(map[string]any)
			objpath.Set(obj["spec"].(map[string]any), f.Path(), v)
			want := validator.Object(obj)
			got := validator.Value(f.Path(), v)
			assert.Equal(t, want.ToAggregate(), got.ToAggregate(), "spec.%s = %#v", f.Name, v)
		}
	}
}
