package apicompat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/apicompat"
)

func kind(t *testing.T, fields ...string) api.API {
	t.Helper()
	a := api.API{Group: "myapp", Version: "v1", Kind: "Database", Plural: "databases", Namespaced: true}
	for _, spec := range fields {
		f, err := api.ParseField(spec)
		require.NoError(t, err)
		a.Fields = append(a.Fields, f)
	}
	return a
}

func TestCheck(t *testing.T) {
	seed := []string{"engine:string:enum=mysql,postgres:required", "version:string", "replicas:int32:min=1:max=5:default=1", "backup.schedule:string"}
	tests := []struct {
		name   string
		new    []string
		rules  []string
		breaks []apicompat.Break // nil: safe
	}{
		{name: "unchanged", new: seed},
		{name: "an optional field added", new: append(seed[:4:4], "tier:string")},
		{name: "a required field with a default added", new: append(seed[:4:4], "tier:string:required:default=gold")},
		{name: "a required field added in a new object", new: append(seed[:4:4], "tls.secret:string:required")},
		{name: "an enum widened", new: []string{"engine:string:enum=mysql,postgres,mariadb:required", seed[1], seed[2], seed[3]}},
		{name: "bounds relaxed", new: []string{seed[0], seed[1], "replicas:int32:min=0:default=1", seed[3]}},
		{name: "required dropped", new: []string{"engine:string:enum=mysql,postgres", seed[1], seed[2], seed[3]}},
		{name: "a column added", new: []string{seed[0], "version:string:column", seed[2], seed[3]}},
		{name: "a field removed", new: []string{seed[0], seed[2], seed[3]},
			breaks: []apicompat.Break{{"remove-field", "version", "removing a field drops what objects already stored hold in it"}}},
		{name: "a type changed", new: []string{seed[0], "version:int32", seed[2], seed[3]},
			breaks: []apicompat.Break{{"field", "version", "its type changes from string to int32: values stored in it no longer fit"}}},
		{name: "a field made an object", new: []string{seed[0], "version.major:int32", seed[2], seed[3]},
			breaks: []apicompat.Break{{"field", "version", "it changes from string to an object: values stored in it no longer fit"}}},
		{name: "made required", new: []string{seed[0], "version:string:required", seed[2], seed[3]},
			breaks: []apicompat.Break{{"field", "version", "it becomes required without a default: objects already stored may lack it"}}},
		{name: "a required field added", new: append(seed[:4:4], "tier:string:required"),
			breaks: []apicompat.Break{{"field", "tier", "a new required field without a default: objects already stored lack it"}}},
		{name: "a required field added in an object that exists", new: append(seed[:4:4], "backup.bucket:string:required"),
			breaks: []apicompat.Break{{"field", "backup.bucket", "a new required field without a default: objects already stored lack it"}}},
		{name: "an enum narrowed", new: []string{"engine:string:enum=postgres:required", seed[1], seed[2], seed[3]},
			breaks: []apicompat.Break{{"field", "engine", "its enum loses mysql: objects holding it would be refused"}}},
		{name: "an enum added", new: []string{seed[0], "version:string:enum=15,16", seed[2], seed[3]},
			breaks: []apicompat.Break{{"field", "version", "it gets an enum: values already accepted outside it would be refused"}}},
		{name: "bounds narrowed", new: []string{seed[0], "version:string:maxLength=8", "replicas:int32:min=2:max=3:default=2", seed[3]},
			breaks: []apicompat.Break{
				{"field", "version", "it gets maxLength=8: values already accepted beyond it would be refused"},
				{"field", "replicas", `its default changes from "1" to "2": objects stored without the field would read back differently`},
				{"field", "replicas", "its min goes from 1 to 2: values already accepted between them would be refused"},
				{"field", "replicas", "its max goes from 5 to 3: values already accepted between them would be refused"},
			}},
		{name: "a default added", new: []string{seed[0], "version:string:default=16", seed[2], seed[3]},
			breaks: []apicompat.Break{{"field", "version", `it gets the default "16": objects stored without the field would read back with it`}}},
		{name: "a default removed", new: []string{seed[0], seed[1], "replicas:int32:min=1:max=5", seed[3]},
			breaks: []apicompat.Break{{"field", "replicas", `its default "1" goes: objects stored without the field would read back without it`}}},
		{name: "a pattern added", new: []string{seed[0], "version:string:pattern=^[0-9]+$", seed[2], seed[3]},
			breaks: []apicompat.Break{{"field", "version", "its pattern changes: values the old one accepted may not match"}}},
		{name: "made immutable", new: []string{seed[0], "version:string:immutable", seed[2], seed[3]},
			breaks: []apicompat.Break{{"field", "version", "it becomes immutable: updates that change it would be refused"}}},
		{name: "a field rule added", new: []string{seed[0], "version:string:rule=self != 'x'", seed[2], seed[3]},
			breaks: []apicompat.Break{{"field", "version", `it gets the rule "self != 'x'": values already accepted may be refused`}}},
		{name: "an optional immutable field added", new: append(seed[:4:4], "region:string:immutable")},
		{name: "a spec rule added", new: seed, rules: []string{"self.replicas <= 3#at most 3"},
			breaks: []apicompat.Break{{"rule", "self.replicas <= 3", "a new rule may refuse objects the version accepted"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := kind(t, seed...), kind(t, tt.new...)
			for _, r := range tt.rules {
				new.Rules = append(new.Rules, api.ParseRule(r))
			}
			assert.Equal(t, tt.breaks, apicompat.Check(old, new))
		})
	}
}

func TestCheckOfARemovedRuleOrOwnedKind(t *testing.T) {
	old := kind(t, "engine:string")
	old.Rules = []api.Rule{{Rule: "self.engine != ''"}}
	old.Owns = []string{"ConfigMap", "Secret"}
	new := kind(t, "engine:string")
	new.Owns = []string{"Secret", "Deployment"}
	assert.Empty(t, apicompat.Check(old, new), "widening: a rule dropped, owned kinds changed")
}

func TestPrerelease(t *testing.T) {
	for version, want := range map[string]bool{"v1": false, "v2": false, "v1alpha1": true, "v1beta2": true, "v10beta10": true} {
		assert.Equal(t, want, apicompat.Prerelease(version), version)
	}
}

func TestCheckStatus(t *testing.T) {
	withStatus := func(specs ...string) api.API {
		a := kind(t)
		for _, spec := range specs {
			f, err := api.ParseStatusField(spec)
			require.NoError(t, err)
			a.Status = append(a.Status, f)
		}
		return a
	}
	old := withStatus("endpoint:string", "phase:string:enum=Pending,Ready")
	tests := []struct {
		name   string
		new    api.API
		breaks []apicompat.Break
	}{
		{"a status field added", withStatus("endpoint:string", "phase:string:enum=Pending,Ready", "readyReplicas:int32"), nil},
		{"an enum narrowed: the operator alone writes status", withStatus("endpoint:string", "phase:string:enum=Ready"), nil},
		{"a status field removed", withStatus("phase:string:enum=Pending,Ready"),
			[]apicompat.Break{{"remove-status-field", "endpoint", "removing a status field breaks the clients that read it"}}},
		{"a status field's type changed", withStatus("endpoint:[]string", "phase:string:enum=Pending,Ready"),
			[]apicompat.Break{{"status-field", "endpoint", "its type changes from string to []string: the clients that read it would fail"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.breaks, apicompat.Check(old, tt.new))
		})
	}
}

func TestCheckLists(t *testing.T) {
	old := kind(t, "users[].name:string:required", "users[].roles:[]string")
	tests := []struct {
		name   string
		new    api.API
		breaks []apicompat.Break
	}{
		{"a field added to the objects", kind(t, "users[].name:string:required", "users[].roles:[]string", "users[].admin:bool"), nil},
		{"a required field without a default added to the objects", kind(t, "users[].name:string:required", "users[].roles:[]string", "users[].email:string:required"),
			[]apicompat.Break{{"field", "users[].email", "a new required field without a default: objects already stored lack it"}}},
		{"a new list with a required field", kind(t, "users[].name:string:required", "users[].roles:[]string", "backups[].bucket:string:required"), nil},
		{"the keys changed", kind(t, "users[].name:string:required", "users[].roles:[]string", "users[].email:string:required:default=x:key"),
			[]apicompat.Break{{"field", "users", "its objects' keys change from name to email: server-side apply would merge the objects already stored by other fields"}}},
		{"the list removed", kind(t),
			[]apicompat.Break{{"remove-field", "users[].name", "removing a field drops what objects already stored hold in it"},
				{"remove-field", "users[].roles", "removing a field drops what objects already stored hold in it"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.breaks, apicompat.Check(old, tt.new))
		})
	}
}

func TestCheckScale(t *testing.T) {
	old := kind(t, "replicas:int32", "shards:int32")
	old.ScaleReplicas = "replicas"
	for _, tt := range []struct {
		name   string
		scale  string
		breaks []apicompat.Break
	}{
		{"kept", "replicas", nil},
		{"moved to another field", "shards", []apicompat.Break{{"scale-replicas", "replicas", "the scale subresource changes or goes: what scales the kind (an autoscaler, kubectl scale) would fail or scale another field"}}},
		{"removed", "", []apicompat.Break{{"scale-replicas", "replicas", "the scale subresource changes or goes: what scales the kind (an autoscaler, kubectl scale) would fail or scale another field"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			new := old
			new.ScaleReplicas = tt.scale
			assert.Equal(t, tt.breaks, apicompat.Check(old, new))
		})
	}
}

func TestNoneBreaks(t *testing.T) {
	seed := []string{"engine:string:enum=mysql,postgres:required", "replicas:int32:min=1:max=5:default=1"}
	tests := []struct {
		name  string
		newer []string
		rules []string
		// describe gives the newer version's first field a description.
		describe bool
		breaks   []apicompat.Break // nil: None conversion serves both
	}{
		{name: "the same schema", newer: seed},
		{name: "a field with a default added", newer: append(seed[:2:2], "tier:string:default=standard")},
		{name: "a field with a default removed", newer: seed[:1]},
		{name: "a description and a column changed", newer: []string{"engine:string:enum=mysql,postgres:required:column", seed[1]}, describe: true},
		{name: "a field without a default removed", newer: seed[1:],
			breaks: []apicompat.Break{{Key: "remove-field", Value: "engine", Why: "it has no default: objects of v1 would lose it when read as v2"}}},
		{name: "a field without a default added", newer: append(seed[:2:2], "tier:string"),
			breaks: []apicompat.Break{{Key: "field", Value: "tier", Why: "it is new and has no default: objects written as v1 would lose it"}}},
		{name: "a bound narrowed", newer: []string{seed[0], "replicas:int32:min=1:max=3:default=1"},
			breaks: []apicompat.Break{{Key: "field", Value: "replicas", Why: "from v1 to v2 its max goes from 5 to 3: values already accepted between them would be refused"}}},
		{name: "an enum widened", newer: []string{"engine:string:enum=mysql,postgres,mariadb:required", seed[1]},
			breaks: []apicompat.Break{{Key: "field", Value: "engine", Why: "from v2 back to v1 its enum loses mariadb: objects holding it would be refused"}}},
		{name: "a rule added", newer: seed, rules: []string{"self.replicas > 0"},
			breaks: []apicompat.Break{{Key: "rule", Value: "self.replicas > 0", Why: "v1 lacks it: an object v1 accepts, v2 may refuse"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newer := kind(t, tt.newer...)
			newer.Version = "v2"
			if tt.describe {
				newer.Fields[0].Description = "The database engine."
			}
			for _, r := range tt.rules {
				newer.Rules = append(newer.Rules, api.ParseRule(r))
			}
			assert.Equal(t, tt.breaks, apicompat.NoneBreaks(kind(t, seed...), newer))
		})
	}
}
