package awstest

import (
	"encoding/json"
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

// envNames returns the names of an Environment.Variables mapping.
func envNames(n *yaml.Node) map[string]bool {
	out := map[string]bool{}
	vars := lookup(lookup(n, "Environment"), "Variables")
	for i := 0; vars != nil && i+1 < len(vars.Content); i += 2 {
		out[vars.Content[i].Value] = true
	}
	return out
}

// TestLocalEnvAndEvents: `sam local` passes a function only the variables
// its template declares, so every variable of events/env.json must be
// declared for the functions it is given to (Parameters: all of them,
// through Globals), or it would be dropped without a word; and every
// function has a sample event for make local-invoke-<Function>.
func TestLocalEnvAndEvents(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	tmpl := loadTemplate(t)
	globals := envNames(lookup(lookup(tmpl, "Globals"), "Function"))
	resources := lookup(tmpl, "Resources")
	raw, err := os.ReadFile(filepath.Join(root, "events", "env.json"))
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]map[string]string
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatalf("events/env.json: %v", err)
	}
	for section, vars := range env {
		declared := globals
		if section != "Parameters" {
			fn := lookup(resources, section)
			if fn == nil || lookup(fn, "Type").Value != "AWS::Serverless::Function" {
				t.Errorf("events/env.json: %s is not a function of template.yaml", section)
				continue
			}
			declared = envNames(lookup(fn, "Properties"))
			for k := range globals {
				declared[k] = true
			}
		}
		for name := range vars {
			if !declared[name] {
				t.Errorf("events/env.json: %s.%s is not declared for it in template.yaml; sam local would drop it", section, name)
			}
		}
	}
	for _, name := range []string{"BLUEPRINT_JOBS_TABLE", "BLUEPRINT_BUCKET", "BLUEPRINT_BASE_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3"} {
		if env["Parameters"][name] == "" {
			t.Errorf("events/env.json sets no %s for every function", name)
		}
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	event := regexp.MustCompile(`(?m)^LOCAL_EVENT_([A-Za-z]+)\s*:=\s*(\S+)$`)
	events := map[string]string{}
	for _, m := range event.FindAllStringSubmatch(string(makefile), -1) {
		events[m[1]] = m[2]
	}
	for i := 0; i+1 < len(resources.Content); i += 2 {
		name, res := resources.Content[i].Value, resources.Content[i+1]
		if lookup(res, "Type").Value != "AWS::Serverless::Function" {
			continue
		}
		ev, ok := events[name]
		if !ok {
			t.Errorf("%s: no LOCAL_EVENT_%s in the Makefile", name, name)
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, ev))
		if err != nil || !json.Valid(b) {
			t.Errorf("%s: sample event %s: %v (valid JSON: %v)", name, ev, err, json.Valid(b))
		}
	}
}

// TestFunctionArchitectures: the pure-Go functions take PureGoArchitecture
// (the Makefile's LAMBDA_ARCH, set with it); the cgo functions keep the
// Globals' x86_64, which the Makefile builds them for whatever LAMBDA_ARCH.
func TestFunctionArchitectures(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^LAMBDA_CGO\s*:=\s*GOOS=linux GOARCH=amd64 `).Match(makefile) {
		t.Error("the Makefile's LAMBDA_CGO does not build for linux/amd64")
	}
	if !regexp.MustCompile(`(?m)^LAMBDA_PURE\s*=\s*GOOS=linux GOARCH=\$\(LAMBDA_GOARCH\) `).Match(makefile) {
		t.Error("the Makefile's LAMBDA_PURE does not build for linux/$(LAMBDA_GOARCH)")
	}
	tmpl := loadTemplate(t)
	g := lookup(lookup(lookup(tmpl, "Globals"), "Function"), "Architectures")
	if g == nil || len(g.Content) != 1 || g.Content[0].Value != "x86_64" {
		t.Fatal("Globals.Function.Architectures is not [x86_64]")
	}
	p := lookup(lookup(lookup(tmpl, "Parameters"), "PureGoArchitecture"), "Default")
	if p == nil || p.Value != "x86_64" {
		t.Fatal("PureGoArchitecture's default is not x86_64 (LAMBDA_ARCH's)")
	}
	resources := lookup(tmpl, "Resources")
	for fn, pure := range map[string]bool{"ApiFunction": false, "ProcessFunction": false, "UploadFunction": false, "WebhookFunction": true, "SweepFunction": true} {
		a := lookup(lookup(lookup(resources, fn), "Properties"), "Architectures")
		got := a != nil && len(a.Content) == 1 && a.Content[0].Tag == "!Ref" && a.Content[0].Value == "PureGoArchitecture"
		if got != pure || (!pure && a != nil) {
			t.Errorf("%s: Architectures %v, want PureGoArchitecture: %v", fn, a, pure)
		}
	}
}
