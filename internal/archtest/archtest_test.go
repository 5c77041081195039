// Package archtest checks the module's package graph, as `go list` reports it, against the rules
// of docs/ARCHITECTURE.md, and keeps the graph printed there true: run
//
//	go test ./internal/archtest -run TestDocumentedGraph -update
//
// after a change of imports to rewrite it.
package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/vtsproject/vts"

var update = flag.Bool("update", false, "rewrite the package graph in docs/ARCHITECTURE.md")

// pkg is what `go list -json` says of one package.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string // of its non-test files
	Deps       []string // everything those import, transitively
}

// listModule lists every package of the module.
func listModule(t *testing.T) map[string]pkg {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	cmd := exec.Command(goBin, "list", "-e", "-json=ImportPath,Dir,GoFiles,Imports,Deps", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

func ours(path string) bool { return path == module || strings.HasPrefix(path, module+"/") }

func isTestKit(path string) bool { return strings.HasPrefix(path, module+"/internal/testkit/") }

// violations lists every broken rule of the graph:
//   - workflows does no I/O: it imports neither internal/store, nor api, nor net/http (the
//     activities, where effects live, may use the store);
//   - api reaches workflows and activities only through internal/lifecycle;
//   - only tests import the test kits (internal/testkit/...);
//   - internal/job, the job's vocabulary, imports nothing of the module;
//   - the engine's stages may import the page model and internal/lang, never each other, and
//     only the pipeline (internal/engine/ocr) composes them.
func violations(pkgs map[string]pkg) []string {
	var out []string
	for _, p := range sorted(pkgs) {
		for _, imp := range p.Imports {
			if !isStage(imp) || p.ImportPath == module+"/"+pipeline || slices.Contains(wiring[imp], p.ImportPath) {
				continue
			}
			if isStage(p.ImportPath) {
				out = append(out, fmt.Sprintf("the stage %s imports the stage %s", p.ImportPath, imp))
			} else {
				out = append(out, fmt.Sprintf("%s composes the stage %s, which only %s may", p.ImportPath, imp, pipeline))
			}
		}
	}
	if wf, ok := pkgs[module+"/workflows"]; ok {
		for _, bad := range []string{module + "/internal/store", module + "/api", "net/http"} {
			if slices.Contains(wf.Imports, bad) {
				out = append(out, "workflows imports "+bad)
			}
		}
	}
	if _, ok := pkgs[module+"/api"]; ok {
		// Walk api's imports without entering the lifecycle.
		seen := map[string]string{module + "/api": ""}
		queue := []string{module + "/api"}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, imp := range pkgs[p].Imports {
				if !ours(imp) || imp == module+"/internal/lifecycle" {
					continue
				}
				if _, ok := seen[imp]; !ok {
					seen[imp] = p
					queue = append(queue, imp)
				}
			}
		}
		for _, bad := range []string{module + "/workflows", module + "/activities"} {
			if via, ok := seen[bad]; ok {
				out = append(out, fmt.Sprintf("api reaches %s other than through internal/lifecycle (via %s)", bad, via))
			}
		}
	}
	for _, p := range sorted(pkgs) {
		// Test kits may use each other, and bench/ holds measurement commands that, like
		// tests, run the service against its kits; neither is shipped in the binary.
		if isTestKit(p.ImportPath) || strings.HasPrefix(p.ImportPath, module+"/bench/") {
			continue
		}
		for _, d := range p.Deps {
			if isTestKit(d) {
				out = append(out, fmt.Sprintf("%s (not a test) depends on the test kit %s", p.ImportPath, d))
			}
		}
	}
	if j, ok := pkgs[module+"/internal/job"]; ok {
		for _, d := range j.Deps {
			if ours(d) {
				out = append(out, "internal/job depends on "+d)
			}
		}
	}
	return out
}

// The engine's stages, each a package around the page model (internal/engine/page), and the
// pipeline that composes them.
var stages = []string{
	"internal/engine/find", "internal/engine/read", "internal/engine/detect",
	"internal/engine/ocr/translator", "internal/engine/clean", "internal/engine/letter",
}

const pipeline = "internal/engine/ocr"

// wiring lists who else may import a stage: the translators are chosen per mode from the
// configuration and handed to the pipeline, and the manga benchmark builds its own.
var wiring = map[string][]string{
	module + "/internal/engine/ocr/translator": {module + "/internal/engine/engines", module + "/bench/mangaeval"},
}

func isStage(path string) bool {
	return slices.Contains(stages, strings.TrimPrefix(path, module+"/"))
}

func sorted(pkgs map[string]pkg) []pkg {
	var out []pkg
	for _, p := range pkgs {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b pkg) int { return strings.Compare(a.ImportPath, b.ImportPath) })
	return out
}

func TestArchitecture(t *testing.T) {
	pkgs := listModule(t)
	for _, want := range []string{"api", "workflows", "activities", "internal/lifecycle", "internal/job", "internal/store"} {
		if _, ok := pkgs[module+"/"+want]; !ok {
			t.Fatalf("go list does not know %s", want)
		}
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// Each rule fails when broken: a graph that breaks them all is told so, rule by rule.
func TestViolationsAreFound(t *testing.T) {
	m := func(s string) string { return module + "/" + s }
	pkgs := map[string]pkg{
		m("workflows"):          {ImportPath: m("workflows"), Imports: []string{m("internal/store"), "net/http"}},
		m("api"):                {ImportPath: m("api"), Imports: []string{m("internal/lifecycle"), m("worker")}},
		m("worker"):             {ImportPath: m("worker"), Imports: []string{m("workflows")}},
		m("internal/lifecycle"): {ImportPath: m("internal/lifecycle"), Imports: []string{m("activities")}},
		m("internal/web"):       {ImportPath: m("internal/web"), Deps: []string{m("internal/testkit/apitest")}},
		m("internal/job"):       {ImportPath: m("internal/job"), Deps: []string{"time", m("internal/plans")}},
		m("internal/engine/letter"): {ImportPath: m("internal/engine/letter"),
			Imports: []string{m("internal/engine/page"), m("internal/lang"), m("internal/engine/clean")}},
		m("internal/engine/ocr"):    {ImportPath: m("internal/engine/ocr"), Imports: []string{m("internal/engine/letter"), m("internal/engine/clean")}},
		m("internal/engine/gemini"): {ImportPath: m("internal/engine/gemini"), Imports: []string{m("internal/engine/letter")}},
	}
	got := strings.Join(violations(pkgs), "\n")
	for _, want := range []string{
		"workflows imports " + m("internal/store"),
		"workflows imports net/http",
		"api reaches " + m("workflows") + " other than through internal/lifecycle (via " + m("worker") + ")",
		m("internal/web") + " (not a test) depends on the test kit " + m("internal/testkit/apitest"),
		"internal/job depends on " + m("internal/plans"),
		"the stage " + m("internal/engine/letter") + " imports the stage " + m("internal/engine/clean"),
		m("internal/engine/gemini") + " composes the stage " + m("internal/engine/letter") + ", which only internal/engine/ocr may",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("not found: %s\nin:\n%s", want, got)
		}
	}
	if strings.Contains(got, m("internal/engine/ocr")+" composes") || strings.Contains(got, "imports the stage "+m("internal/engine/page")) {
		t.Errorf("the pipeline composing stages, or a stage using the page model, was taken for a violation:\n%s", got)
	}
	if strings.Contains(got, m("activities")+" other than") {
		t.Errorf("api's path to activities through the lifecycle was taken for a violation:\n%s", got)
	}
}

const (
	graphStart = "<!-- package graph: go test ./internal/archtest -run TestDocumentedGraph -update -->"
	graphEnd   = "<!-- end of package graph -->"
)

// graph prints, for every package of the module with code, what it imports of the module, names
// relative to the module.
func graph(pkgs map[string]pkg) string {
	var b strings.Builder
	b.WriteString("```\n")
	rel := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, module), "/") }
	for _, p := range sorted(pkgs) {
		if len(p.GoFiles) == 0 {
			continue // test-only packages
		}
		var imps []string
		for _, i := range p.Imports {
			if ours(i) {
				imps = append(imps, rel(i))
			}
		}
		line := rel(p.ImportPath) + ":"
		if len(imps) == 0 {
			line += " (nothing of the module)"
		}
		for _, i := range imps {
			if len(line)+1+len(i) > 100 {
				b.WriteString(line + "\n")
				line = strings.Repeat(" ", 4)
			}
			line += " " + i
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// The graph in docs/ARCHITECTURE.md is the one `go list` reports.
func TestDocumentedGraph(t *testing.T) {
	pkgs := listModule(t)
	doc := filepath.Join(pkgs[module+"/api"].Dir, "..", "docs", "ARCHITECTURE.md")
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start, end := strings.Index(text, graphStart), strings.Index(text, graphEnd)
	if start < 0 || end < start {
		t.Fatalf("%s has no package graph between %q and %q", doc, graphStart, graphEnd)
	}
	start += len(graphStart) + 1
	want := graph(pkgs)
	if text[start:end] == want {
		return
	}
	if *update {
		if err := os.WriteFile(doc, []byte(text[:start]+want+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the package graph in %s is not go list's; run go test ./internal/archtest -run TestDocumentedGraph -update.\nWant:\n%s",
		doc, want)
}

// Size limits: no production Go file over maxFileLines, no engine package over
// maxEnginePackageLines.
const (
	maxFileLines          = 600
	maxEnginePackageLines = 1500
)

func TestSizes(t *testing.T) {
	for _, p := range sorted(listModule(t)) {
		if isTestKit(p.ImportPath) || strings.HasPrefix(p.ImportPath, module+"/bench/") {
			continue // not shipped: test kits and measurement commands
		}
		total := 0
		for _, f := range p.GoFiles {
			data, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			n := bytes.Count(data, []byte("\n"))
			total += n
			if n > maxFileLines {
				t.Errorf("%s/%s has %d lines, over %d", p.ImportPath, f, n, maxFileLines)
			}
		}
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		if strings.HasPrefix(rel, "internal/engine/") && total > maxEnginePackageLines {
			t.Errorf("%s has %d lines of production code, over %d", rel, total, maxEnginePackageLines)
		}
	}
}
