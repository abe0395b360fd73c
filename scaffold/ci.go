package scaffold

// CI is how a project's CI workflow tests it: the style's set-up of its
// tools, then its make targets. A second job lints and renders the Helm
// chart.
type CI struct {
	Setup   []CIStep
	Targets []string
	// DevImage is the dev container's image; the Setup steps that run
	// commands set it up too.
	DevImage string
}

// CIStep is one step of a GitHub Actions job.
type CIStep struct {
	Name string            `json:"name"`
	Uses string            `json:"uses,omitempty"`
	With map[string]string `json:"with,omitempty"`
	Env  map[string]string `json:"env,omitempty"`
	Run  string            `json:"run,omitempty"`
}

// PythonCI sets up Python and installs with pip what the tests need
// (install: pip install's arguments).
func PythonCI(p Project, install string) []CIStep {
	return []CIStep{
		{Name: "Set up Python", Uses: p.Versions.ActionsSetupPython, With: map[string]string{"python-version": p.Versions.Python}},
		{Name: "Install the test tools", Run: "pip install " + install},
	}
}
