// Command check-pins reports the pins of the versions table that follow a
// Go module (pins.Sources) with a newer release on the module proxy
// (the first of $GOPROXY's, as go uses it): the newest of the pin's minor
// line, which a pin may take without a second thought, and the newest of
// all. It changes nothing: a pin moves by hand, with its Checked date.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/opctl/opctl/scaffold/pins"
)

func main() {
	if err := run(os.Stdout, os.Getenv("GOPROXY"), http.DefaultClient, pins.DefaultVersions(), pins.Sources()); err != nil {
		fmt.Fprintln(os.Stderr, "check-pins:", err)
		os.Exit(1)
	}
}

// finding is one pin against its module's releases.
type finding struct {
	key, module, pinned, checked string
	// patch is the newest release of the pinned minor line, newest of
	// all (prereleases aside).
	patch, newest string
}

// run checks the pins of v that sources gives a module against the
// proxy of goproxy, and writes the report to out.
func run(out io.Writer, goproxy string, client *http.Client, v pins.Versions, sources map[string]pins.Source) error {
	proxy, err := proxyURL(goproxy)
	if err != nil {
		return err
	}
	var findings []finding
	var failed []string
	checked := 0
	for _, key := range pins.Keys() {
		src := sources[key]
		if src.Module == "" {
			continue
		}
		checked++
		versions, err := releases(client, proxy, src.Module)
		if err != nil {
			failed = append(failed, fmt.Sprintf("pin %s: %v", key, err))
			continue
		}
		f := finding{key: key, module: src.Module, pinned: pins.Release(v.Pin(key)), checked: src.Checked}
		f.patch, f.newest = newer(f.pinned, versions)
		if f.patch != "" || f.newest != "" {
			findings = append(findings, f)
		}
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "pin\tmodule\tpinned\tnewest patch\tnewest\tchecked")
	for _, f := range findings {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", f.key, f.module, f.pinned, orDash(f.patch), orDash(f.newest), f.checked)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(out, "%d of the %d pins that follow a Go module have a newer release on %s.\n", len(findings), checked, proxy); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d pins not checked:\n%s", len(failed), strings.Join(failed, "\n"))
	}
	return nil
}

// proxyURL is the first proxy of a GOPROXY list (entries separated by
// commas or pipes; "direct" and "off" are not proxies), or go's default.
func proxyURL(goproxy string) (string, error) {
	if goproxy == "" {
		return "https://proxy.golang.org", nil
	}
	for _, entry := range strings.FieldsFunc(goproxy, func(r rune) bool { return r == ',' || r == '|' }) {
		switch entry {
		case "direct":
			continue
		case "off":
			return "", fmt.Errorf("GOPROXY=%s: the module proxy is off", goproxy)
		}
		return strings.TrimSuffix(entry, "/"), nil
	}
	return "", fmt.Errorf("GOPROXY=%s names no proxy", goproxy)
}

// releases are the versions the proxy lists for module.
func releases(client *http.Client, proxy, mod string) ([]string, error) {
	escaped, err := module.EscapePath(mod)
	if err != nil {
		return nil, err
	}
	resp, err := client.Get(proxy + "/" + escaped + "/@v/list")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: the module proxy answered %s", mod, resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	return strings.Fields(string(body)), err
}

// newer are the newest release of pinned's minor line and the newest of
// all, each only when newer than pinned; prereleases and versions that
// are not semver are left out.
func newer(pinned string, versions []string) (patch, newest string) {
	var valid []string
	for _, v := range versions {
		if semver.IsValid(v) && semver.Prerelease(v) == "" && semver.Build(v) == "" {
			valid = append(valid, v)
		}
	}
	semver.Sort(valid)
	for _, v := range slices.Backward(valid) {
		if semver.Compare(v, pinned) <= 0 {
			break
		}
		if newest == "" {
			newest = v
		}
		if patch == "" && semver.MajorMinor(v) == semver.MajorMinor(pinned) {
			patch = v
		}
	}
	if newest == patch {
		newest = ""
	}
	return patch, newest
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
