package machinery

import (
	"go/format"
	"testing"
)

func TestGoSource(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"unused imports dropped, each group sorted",
			"package p\n\nimport (\n\t\"strings\"\n\t\"fmt\"\n\t\"os\"\n\n\tcorev1 \"k8s.io/api/core/v1\"\n\t\"k8s.io/apimachinery/pkg/api/resource\"\n)\n\n// os.Exit in a comment is no use.\nvar _ = fmt.Sprint(strings.ToUpper(\"resource.Quantity\"), corev1.PodSpec{})\n",
			"package p\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\n\tcorev1 \"k8s.io/api/core/v1\"\n)\n\n// os.Exit in a comment is no use.\nvar _ = fmt.Sprint(strings.ToUpper(\"resource.Quantity\"), corev1.PodSpec{})\n"},
		{"a group left empty goes",
			"package p\n\nimport (\n\t\"fmt\"\n\n\t\"k8s.io/apimachinery/pkg/api/resource\"\n)\n\nvar _ = fmt.Sprint()\n",
			"package p\n\nimport (\n\t\"fmt\"\n)\n\nvar _ = fmt.Sprint()\n"},
		{"no import left",
			"package p\n\nimport (\n\t\"fmt\"\n)\n\nvar x = `fmt.Sprint`\n",
			"package p\n\nvar x = `fmt.Sprint`\n"},
		{"a selector's field is not the package",
			"package p\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nvar _ = fmt.Sprint(x.strings.Y)\n",
			"package p\n\nimport (\n\t\"fmt\"\n)\n\nvar _ = fmt.Sprint(x.strings.Y)\n"},
		{"a name of the file's own beside a package's (go/ast settles it)",
			"package p\n\nimport (\n\t\"fmt\"\n\t\"sigs.k8s.io/controller-runtime/pkg/cache\"\n)\n\nfunc f(cache struct{ Name string }) { fmt.Println(cache.Name) }\n",
			"package p\n\nimport (\n\t\"fmt\"\n)\n\nfunc f(cache struct{ Name string }) { fmt.Println(cache.Name) }\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := goSource([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			if formatted, err := format.Source(got); err != nil || string(formatted) != string(got) {
				t.Errorf("not as gofmt writes it: %v\n%s", err, formatted)
			}
		})
	}
}
