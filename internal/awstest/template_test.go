package awstest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// loadTemplate parses template.yaml.
func loadTemplate(t *testing.T) *yaml.Node {
	t.Helper()
	tmpl, err := parseTemplate()
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

var subRef = regexp.MustCompile(`\$\{([A-Za-z0-9]+)(\.[A-Za-z0-9.]+)?\}`)

// refs collects the logical ids n refers to: Ref, GetAtt and Sub, in the
// short (!Ref) and long (Fn::GetAtt) forms.
func refs(n *yaml.Node, out map[string]bool) {
	if n == nil {
		return
	}
	switch n.Tag {
	case "!Ref":
		out[n.Value] = true
	case "!GetAtt":
		if n.Kind == yaml.ScalarNode {
			out[strings.SplitN(n.Value, ".", 2)[0]] = true
		} else if len(n.Content) > 0 {
			out[n.Content[0].Value] = true
		}
	case "!Sub":
		s := n
		if n.Kind == yaml.SequenceNode && len(n.Content) > 0 {
			s = n.Content[0]
			for _, c := range n.Content[1:] {
				refs(c, out)
			}
		}
		for _, m := range subRef.FindAllStringSubmatch(s.Value, -1) {
			out[m[1]] = true
		}
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			switch k {
			case "Ref":
				out[v.Value] = true
			case "Fn::GetAtt":
				if v.Kind == yaml.SequenceNode && len(v.Content) > 0 {
					out[v.Content[0].Value] = true
				} else {
					out[strings.SplitN(v.Value, ".", 2)[0]] = true
				}
			case "DependsOn":
				if v.Kind == yaml.ScalarNode {
					out[v.Value] = true
				}
			}
		}
	}
	for _, c := range n.Content {
		refs(c, out)
	}
}

// dependencies maps each resource of the template to the resources it
// refers to, with the Globals of AWS::Serverless::Function applied to
// every function as the SAM transform does.
func dependencies(tmpl *yaml.Node) map[string][]string {
	resources := lookup(tmpl, "Resources")
	globals := lookup(lookup(tmpl, "Globals"), "Function")
	deps := map[string][]string{}
	for i := 0; i+1 < len(resources.Content); i += 2 {
		name, res := resources.Content[i].Value, resources.Content[i+1]
		found := map[string]bool{}
		refs(res, found)
		if lookup(res, "Type").Value == "AWS::Serverless::Function" {
			refs(globals, found)
		}
		for r := range found {
			if lookup(resources, r) != nil && r != name {
				deps[name] = append(deps[name], r)
			}
		}
		slices.Sort(deps[name])
	}
	return deps
}

// cycle returns a dependency cycle of deps, or nil.
func cycle(deps map[string][]string) []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(n string) []string
	visit = func(n string) []string {
		state[n] = open
		path = append(path, n)
		for _, d := range deps[n] {
			switch state[d] {
			case open:
				i := slices.Index(path, d)
				return append(slices.Clone(path[i:]), d)
			case unseen:
				if c := visit(d); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return nil
	}
	names := make([]string, 0, len(deps))
	for n := range deps {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if state[n] == unseen {
			if c := visit(n); c != nil {
				return c
			}
		}
	}
	return nil
}

// TestTemplateHasNoCircularDependency: CloudFormation refuses a stack
// whose resources depend on each other in a circle. cfn-lint (E3004)
// skips cycles through SAM resources, so this test follows Ref, GetAtt,
// Sub and DependsOn itself, with the function Globals applied to every
// function, as after the SAM transform.
func TestTemplateHasNoCircularDependency(t *testing.T) {
	tmpl := loadTemplate(t)
	if c := cycle(dependencies(tmpl)); c != nil {
		t.Fatalf("circular dependency: %s", strings.Join(c, " -> "))
	}
	// The check bites: the state machine's ARN in the global environment
	// (the functions it invokes would depend on it) is a cycle.
	env := lookup(lookup(lookup(lookup(tmpl, "Globals"), "Function"), "Environment"), "Variables")
	env.Content = append(env.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "BLUEPRINT_STATE_MACHINE_ARN"},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!Ref", Value: "JobFlow"})
	if c := cycle(dependencies(tmpl)); c == nil {
		t.Fatal("the state machine's ARN in the function Globals was not found to be circular")
	}
}

// TestTemplateFunctions: every function of the template has a main in
// functions/, the zip functions a build-<Function> target in the Makefile
// and their own Runtime, and the image function none (SAM refuses a
// Runtime on an image function).
func TestTemplateFunctions(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := loadTemplate(t)
	if lookup(lookup(lookup(tmpl, "Globals"), "Function"), "Runtime") != nil {
		t.Error("Globals.Function.Runtime would apply to the image function too")
	}
	resources := lookup(tmpl, "Resources")
	n := 0
	for i := 0; i+1 < len(resources.Content); i += 2 {
		name, res := resources.Content[i].Value, resources.Content[i+1]
		if lookup(res, "Type").Value != "AWS::Serverless::Function" {
			continue
		}
		n++
		fn := strings.ToLower(strings.TrimSuffix(name, "Function"))
		if _, err := os.Stat(filepath.Join(root, "functions", fn, "main.go")); err != nil {
			t.Errorf("%s: no functions/%s/main.go", name, fn)
		}
		props := lookup(res, "Properties")
		if pt := lookup(props, "PackageType"); pt != nil && pt.Value == "Image" {
			if lookup(props, "Runtime") != nil || lookup(props, "Handler") != nil {
				t.Errorf("%s: an image function with a Runtime or Handler", name)
			}
			if _, err := os.Stat(filepath.Join(root, lookup(lookup(res, "Metadata"), "Dockerfile").Value)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if r := lookup(props, "Runtime"); r == nil || r.Value != "provided.al2023" {
			t.Errorf("%s: Runtime is not provided.al2023", name)
		}
		if bm := lookup(lookup(res, "Metadata"), "BuildMethod"); bm == nil || bm.Value != "makefile" {
			t.Errorf("%s: BuildMethod is not makefile", name)
		}
		if !strings.Contains(string(makefile), "\nbuild-"+name+":") {
			t.Errorf("%s: the Makefile has no build-%s target", name, name)
		}
	}
	if n != 5 {
		t.Errorf("%d functions in the template, want 5 (api, process, webhook, sweep, upload)", n)
	}
}
