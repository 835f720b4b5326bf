package registry_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/scheme"

	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
)

// The module, its root from here, and the packages every kind leans on.
const (
	module      = "github.com/easyai-dev/easyai"
	moduleRoot  = "../../.."
	kindsPkg    = module + "/pkg/kinds"
	registryPkg = kindsPkg + "/registry"
)

// goFile is one non-test Go file of the module, parsed.
type goFile struct {
	path string // from the module's root
	pkg  string // its package's import path
	fset *token.FileSet
	file *ast.File
}

// moduleFiles parses every non-test Go file of the module (testdata, hidden
// folders and other modules aside).
func moduleFiles(t *testing.T) []goFile {
	t.Helper()
	var files []goFile
	err := filepath.WalkDir(moduleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == moduleRoot {
				return nil
			}
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(moduleRoot, p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		files = append(files, goFile{path: rel, pkg: path.Join(module, path.Dir(rel)), fset: fset, file: file})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found %d Go files under %s: the walk did not find the module", len(files), moduleRoot)
	}
	return files
}

// kindPackages maps the import path of each package that defines a
// registered kind to its kinds.
func kindPackages() map[string][]kinds.Kind {
	pkgs := map[string][]kinds.Kind{}
	for _, k := range registry.Default().Submittable() {
		p := reflect.TypeOf(k).PkgPath()
		pkgs[p] = append(pkgs[p], k)
	}
	return pkgs
}

// namesOf joins the kinds' names.
func namesOf(ks []kinds.Kind) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Name()
	}
	return strings.Join(names, ", ")
}

// TestOnlyTheRegistryImportsTheKinds: the commands and engines talk to
// kinds through pkg/kinds' interfaces (an optional one for what only some
// kinds have, as kinds.RuntimeLister); only pkg/kinds/registry assembles
// them. A kind's package may import another kind's (a kind rendered as
// another); tests may import any.
func TestOnlyTheRegistryImportsTheKinds(t *testing.T) {
	kindPkgs := kindPackages()
	for _, f := range moduleFiles(t) {
		if _, isKind := kindPkgs[f.pkg]; isKind || f.pkg == registryPkg {
			continue
		}
		for _, imp := range f.file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if ks, ok := kindPkgs[p]; ok {
				t.Errorf("%s imports %s (kind %s): only %s assembles the kinds; ask pkg/kinds' interfaces instead (an optional interface in pkg/kinds/kind.go for what only some kinds do)",
					f.path, strings.TrimPrefix(p, module+"/"), namesOf(ks), strings.TrimPrefix(registryPkg, module+"/"))
			}
		}
	}
}

// kindNames maps the names that tell one kind from the others (lower-cased)
// to the kind: its name and aliases, its API kind and resource (unless
// Kubernetes has a kind of that name too: Volcano's Job), and a
// training-operator kind's replica-map field.
func kindNames() map[string]string {
	builtin := map[string]bool{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		builtin[gvk.Kind] = true
	}
	names := map[string]string{}
	for _, k := range registry.Default().Submittable() {
		all := append([]string{k.Name()}, k.Aliases()...)
		if !builtin[k.GroupVersionKind().Kind] {
			all = append(all, k.GroupVersionKind().Kind, k.Resource().Resource)
		}
		if shape, ok := trainingOperatorShape(k); ok {
			all = append(all, shape.ReplicaSpecsField)
		}
		for _, n := range all {
			names[strings.ToLower(n)] = k.Name()
		}
	}
	return names
}

// TestSharedKindPackagesNameNoKind: what the kinds share (pkg/kinds, the
// training-operator's pkg/kinds/kubeflow, ...) has no case of its own for
// one kind: none of its strings (nor a struct's JSON field) names a kind,
// so adding a kind is its folder and a line of the registry. What differs
// between kinds is data each kind provides (a field of its kubeflow.Shape,
// a method of an optional interface of pkg/kinds).
func TestSharedKindPackagesNameNoKind(t *testing.T) {
	kindPkgs, names := kindPackages(), kindNames()
	checked := map[string]bool{}
	for _, f := range moduleFiles(t) {
		_, isKind := kindPkgs[f.pkg]
		if isKind || (f.pkg != kindsPkg && !strings.HasPrefix(f.pkg, kindsPkg+"/")) {
			continue
		}
		checked[f.pkg] = true
		for _, s := range stringsOf(f.file) {
			if kind, ok := names[strings.ToLower(s.value)]; ok {
				t.Errorf("%s:%d: %q names the kind %s: a package the kinds share has no case of its own for one kind; make it data the kind provides (a field of its kubeflow.Shape, a method of an optional interface of pkg/kinds)",
					f.path, f.fset.Position(s.pos).Line, s.value, kind)
			}
		}
	}
	for _, p := range []string{kindsPkg, kindsPkg + "/kubeflow"} {
		if !checked[p] {
			t.Errorf("%s was not checked: is it a kind's package now?", p)
		}
	}
}

// literal is a string of the code, and where it is.
type literal struct {
	value string
	pos   token.Pos
}

// stringsOf lists the string literals of file but its imports, and the
// JSON names of its structs' fields.
func stringsOf(file *ast.File) []literal {
	var out []literal
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.Field:
			if n.Tag != nil {
				tag, _ := strconv.Unquote(n.Tag.Value)
				name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
				out = append(out, literal{name, n.Tag.Pos()})
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				s, _ := strconv.Unquote(n.Value)
				out = append(out, literal{s, n.Pos()})
			}
		}
		return true
	})
	return out
}

// TestNoCaseOfAKindOutsideIt: no package but a kind's own has a case of
// its own for the kind: no switch case, nor == or !=, on a string naming
// it (a kind's help, flags or values come from the kind, through an
// interface of pkg/kinds).
func TestNoCaseOfAKindOutsideIt(t *testing.T) {
	kindPkgs, names := kindPackages(), kindNames()
	for _, f := range moduleFiles(t) {
		if _, isKind := kindPkgs[f.pkg]; isKind {
			continue
		}
		for _, s := range casesOf(f.file) {
			if kind, ok := names[strings.ToLower(s.value)]; ok {
				t.Errorf("%s:%d: a case of %q, the kind %s: what differs for a kind comes from the kind (a method of an optional interface of pkg/kinds), not from a case outside its package",
					f.path, f.fset.Position(s.pos).Line, s.value, kind)
			}
		}
	}
}

// casesOf lists the strings file tells apart: those of its switch cases,
// and those it compares with == or !=.
func casesOf(file *ast.File) []literal {
	var out []literal
	add := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, _ := strconv.Unquote(lit.Value)
			out = append(out, literal{s, lit.Pos()})
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CaseClause:
			for _, e := range n.List {
				add(e)
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				add(n.X)
				add(n.Y)
			}
		}
		return true
	})
	return out
}
