package crawler_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crawler/sites"
)

// The README's first program, built as a user builds it: in a module of its
// own whose go.mod has the README's lines, its replace pointed at this
// checkout. Offline: the module cache already holds what the crawler
// package needs, since this test's own package was built from it, and
// crawler's go.sum gives the checksums.
func TestREADMEProgramBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program in a temporary module (-short)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool: %v", err)
	}
	root, err := os.Getwd() // the root package's directory is the checkout's
	if err != nil {
		t.Fatal(err)
	}
	readme := readFile(t, "README.md")
	program, err := fencedBlock(readme, "### A first program", "go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(program, "package main\n") {
		t.Fatalf("README.md: the go block under \"### A first program\" is not a whole program (no package main):\n%s", program)
	}
	gomod, err := fencedBlock(readme, "### Depending on crawler", "go.mod")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err = replaceTarget(gomod, root)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), gomod)
	writeFile(t, filepath.Join(dir, "main.go"), program)
	writeFile(t, filepath.Join(dir, "go.sum"), readFile(t, "go.sum"))
	cmd := exec.Command(goTool, "build", "-o", filepath.Join(dir, "mycrawl"), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GOFLAGS=-mod=mod", // add the requirements the build needs, as the README says
		"GOPROXY=off",      // no network: everything is in the module cache
		"GOWORK=off",
		"GOTOOLCHAIN=local",
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the README's program in a module with its go.mod:\n%s\nfailed: %v\n%s", gomod, err, out)
	}
}

// The README's first commands are the demo crawl and the test command that
// .ci/run runs, word for word.
func TestREADMECommands(t *testing.T) {
	ci := readFile(t, ".ci/run")
	testCmd, err := ciTestCommand(ci)
	if err != nil {
		t.Fatal(err)
	}
	readme := readFile(t, "README.md")
	first, err := fencedBlock(readme, "# crawler", "sh")
	if err != nil {
		t.Fatal(err)
	}
	want := "go run ./cmd/crawl -demo\n" + testCmd + "\n"
	if first != want {
		t.Errorf("README.md: the first sh block is\n%s\nwant the demo crawl and .ci/run's test command:\n%s", first, want)
	}
}

// ciTestCommand returns the command that .ci/run runs as the README's test
// command: the line after the one that announces it.
func ciTestCommand(ci string) (string, error) {
	const marker = "the README's test command"
	lines := strings.Split(ci, "\n")
	for i, l := range lines {
		if strings.Contains(l, marker) && i+1 < len(lines) {
			cmd := strings.TrimSpace(lines[i+1])
			if !strings.HasPrefix(cmd, "go test ") {
				return "", fmt.Errorf(".ci/run: the line after %q is %q, not a go test command", marker, cmd)
			}
			return cmd, nil
		}
	}
	return "", fmt.Errorf(".ci/run: no line announces %q", marker)
}

// fencedBlock returns the body of the first code block fenced as ```lang
// after the line that is exactly heading (and before the next heading of
// its level or higher).
func fencedBlock(doc, heading, lang string) (string, error) {
	level := strings.IndexFunc(heading, func(r rune) bool { return r != '#' })
	sc := bufio.NewScanner(strings.NewReader(doc))
	var (
		found, in, fenced bool
		b                 strings.Builder
	)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !found:
			found = line == heading
		case in:
			if line == "```" {
				return b.String(), nil
			}
			b.WriteString(line)
			b.WriteByte('\n')
		case strings.HasPrefix(line, "```"):
			if strings.TrimPrefix(line, "```") == lang {
				in = true
			}
			fenced = !fenced // a block of another language: skip it
		case !fenced && strings.HasPrefix(line, "#"):
			n := strings.IndexFunc(line, func(r rune) bool { return r != '#' })
			if n > 0 && n <= level && strings.HasPrefix(line[n:], " ") {
				return "", fmt.Errorf("README.md: no ```%s block under %q before %q", lang, heading, line)
			}
		}
	}
	switch {
	case !found:
		return "", fmt.Errorf("README.md: no heading %q", heading)
	case in:
		return "", fmt.Errorf("README.md: the ```%s block under %q is not closed", lang, heading)
	}
	return "", fmt.Errorf("README.md: no ```%s block under %q", lang, heading)
}

// replaceTarget points the go.mod's replace of module crawler at dir, and
// checks that the go.mod requires crawler as the README says.
func replaceTarget(gomod, dir string) (string, error) {
	const require, replace = "require crawler v0.0.0", "replace crawler => "
	if !strings.Contains(gomod, "\n"+require+"\n") {
		return "", fmt.Errorf("README.md: the go.mod has no line %q:\n%s", require, gomod)
	}
	lines := strings.Split(gomod, "\n")
	n := 0
	for i, l := range lines {
		if strings.HasPrefix(l, replace) {
			lines[i] = replace + dir
			n++
		}
	}
	if n != 1 {
		return "", errors.New("README.md: the go.mod needs one line \"" + replace + "../crawler\"")
	}
	return strings.Join(lines, "\n"), nil
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, name, s string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The README's sites file loads, and means what its comments say.
func TestREADMESitesFile(t *testing.T) {
	text, err := fencedBlock(readFile(t, "README.md"), "## Sites behind logins, and per-site rules", "toml")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MEMBERS_PASSWORD": "m", "API_PASSWORD": "a"}
	rules, err := sites.Load("sites.toml", []byte(text), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	slow := rules.ForURL("https://www.slow.example.org/x")
	if slow.Delay == nil || *slow.Delay != 5*time.Second || *slow.PerHost != 1 || *slow.MaxPages != 1000 {
		t.Errorf("the slow site's rules: %+v", slow)
	}
	members := rules.ForURL("https://members.example.com/a")
	if members.Login == nil || members.Login.Fields["password"] != "m" || rules.AllowedURL("https://members.example.com/logout") {
		t.Errorf("the members' site: %+v", members)
	}
	api := rules.ForURL("https://api.example.net/api/v1")
	if api.BasicAuth == nil || api.Headers["X-Api-Version"] != "2" || rules.ForURL("https://api.example.net/").BasicAuth != nil {
		t.Errorf("the API site: %+v", api)
	}
}
