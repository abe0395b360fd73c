package scaffold

// Versions pins every framework, library and image a generated project uses.
// It is the only place versions live; the project file records the set a
// project was generated with.
type Versions struct {
	Go                string `json:"go"`
	ControllerRuntime string `json:"controllerRuntime"`
	Kubernetes        string `json:"kubernetes"`
	ControllerTools   string `json:"controllerTools"`
	GoBuilderImage    string `json:"goBuilderImage"`
	DistrolessImage   string `json:"distrolessImage"`
	SigsYAML          string `json:"sigsYAML"`
	ChildImage        string `json:"childImage"`
}

// DefaultVersions is the pinned set used by new projects.
func DefaultVersions() Versions {
	return Versions{
		Go:                "1.26.0",
		ControllerRuntime: "v0.25.2",
		Kubernetes:        "v0.37.2",
		ControllerTools:   "v0.23.0",
		GoBuilderImage:    "golang:1.26.8-bookworm",
		DistrolessImage:   "gcr.io/distroless/static-debian12:nonroot",
		SigsYAML:          "v1.6.0",
		// Workload children run busybox: the starter commands need sleep and env.
		ChildImage: "busybox:1.37.0",
	}
}
