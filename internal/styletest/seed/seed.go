// Package seed is opctl's seed example: db-operator, whose Database kind
// owns a ConfigMap. It imports nothing, so cmd's own tests (which cannot
// import styletest, since styletest imports cmd) share it with the style
// tests.
package seed

// Init returns the arguments of opctl init that start the seed project in
// the named style; modulePath: the style takes a Go module path (--repo).
func Init(style string, modulePath bool) []string {
	args := []string{"init", "--style", style, "--domain", "example.com", "--name", "db-operator"}
	if modulePath {
		args = append(args, "--repo", "example.com/db-operator")
	}
	return append(args, "--yes")
}

// Create returns the arguments of opctl create api that add the seed's
// Database kind.
func Create() []string {
	return []string{"create", "api", "--group", "myapp", "--version", "v1", "--kind", "Database",
		"--field", "engine:string:enum=mysql,postgres:required", "--field", "version:string",
		"--field", "storage:quantity", "--field", "replicas:int32:min=1:max=5:default=1", "--owns", "ConfigMap"}
}

// Backfill returns the arguments of opctl create api that add a kind
// owning a Job, whose spec cannot change once created.
func Backfill() []string {
	return []string{"create", "api", "--group", "jobs", "--version", "v1", "--kind", "Backfill",
		"--field", "source:string:required", "--field", "batchSize:int32:min=1:default=100", "--owns", "Job"}
}

// Microservice returns the arguments of opctl create api that add the
// Microservice of docs/scenarios/microservice.md: the platform team's
// standard service, spec to children only.
func Microservice() []string {
	return []string{"create", "api", "--group", "platform", "--version", "v1", "--kind", "Microservice",
		"--field", "image:string:required", "--field", "port:int32:min=1:max=65535:default=8080",
		"--field", "replicas:int32:min=1:default=2", "--field", "minReplicas:int32:min=1", "--field", "maxReplicas:int32:min=1:default=5",
		"--owns", "Deployment,Service,HorizontalPodAutoscaler,ServiceMonitor"}
}
