package report

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Rehearsal is a delivery rehearsal's report (E2E_REPORT, or make
// rehearse's -report): the JSON of e2e/deliver.Report, mirrored here since
// platc does not import that module.
type Rehearsal struct {
	Apps      []RehearsedApp      `json:"applications"`
	RGDs      []RehearsedRGD      `json:"resourceGraphDefinitions"`
	Instances []RehearsedInstance `json:"instances"`
	Checks    []RehearsalCheck    `json:"checks"`
	Failures  []string            `json:"failures"`
}

// RehearsedApp is an Application's final state.
type RehearsedApp struct {
	Env       string `json:"environment"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Parent    string `json:"parent"`
	Wave      int    `json:"wave"`
	Sync      string `json:"sync"`
	Health    string `json:"health"`
	Revision  string `json:"revision"`
	Error     string `json:"error"`
	Verdict   string `json:"verdict"`
	Cause     string `json:"cause"`
	ByHand    string `json:"syncedByHand"`
}

// RehearsedRGD is a ResourceGraphDefinition's final state.
type RehearsedRGD struct {
	Env         string `json:"environment"`
	Name        string `json:"name"`
	State       string `json:"state"`
	CRD         string `json:"crd"`
	Established bool   `json:"established"`
	Error       string `json:"error"`
}

// RehearsedInstance is a stack instance's final state.
type RehearsedInstance struct {
	Env       string `json:"environment"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	State     string `json:"state"`
	Error     string `json:"error"`
}

// RehearsalCheck is one verdict beyond the Applications' states.
type RehearsalCheck struct {
	Name    string  `json:"name"`
	Env     string  `json:"environment"`
	Pass    bool    `json:"pass"`
	Detail  string  `json:"detail"`
	Seconds float64 `json:"seconds"`
}

// ReadRehearsal reads a rehearsal's JSON report strictly: an unknown field
// is an error, so a format change is seen, not shown as empty columns.
func ReadRehearsal(data []byte) (*Rehearsal, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Rehearsal
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a rehearsal's report (the JSON E2E_REPORT or make rehearse's -report writes): %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not a rehearsal's report: more than one JSON document")
	}
	return &r, nil
}

// Took says how long a check took to converge, or "".
func (c RehearsalCheck) Took() string {
	if c.Seconds <= 0 {
		return ""
	}
	return fmt.Sprintf("%.0f s", c.Seconds)
}
