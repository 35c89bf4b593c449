// Writes Velero's real CRDs (as embedded in the Velero Go module) as YAML files, so the test
// control plane serves the exact velero.io/v1 API that Rehearsal's Velero provider talks to.
// Usage: go run . OUTDIR
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vmware-tanzu/velero/config/crd/v1/crds"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: crds-gen OUTDIR")
		os.Exit(2)
	}
	out := os.Args[1]
	if err := os.MkdirAll(out, 0o755); err != nil {
		panic(err)
	}
	for _, crd := range crds.CRDs {
		crd.APIVersion = "apiextensions.k8s.io/v1"
		crd.Kind = "CustomResourceDefinition"
		data, err := yaml.Marshal(crd)
		if err != nil {
			panic(err)
		}
		if err := os.WriteFile(filepath.Join(out, crd.Name+".yaml"), data, 0o644); err != nil {
			panic(err)
		}
	}
}
