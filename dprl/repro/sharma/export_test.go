package sharma

// What the external tests (package sharma_test, which may import dprl/repro/sweeps, where the sharma/jobs
// experiment is registered) need of the package's internals.

// FullSizeRuns is fullSizeRuns: Experiments' first step.
var FullSizeRuns = fullSizeRuns

// WriteDefaultRuns saves fakeOutcomes and fakePrivacy where Experiments saves the notebook's own runs and
// their privacy rows.
func WriteDefaultRuns() error {
	if err := SaveOutcomes(tempFile("outcomes.json"), fakeOutcomes()); err != nil {
		return err
	}
	return writeJSON(privacyFile(), fakePrivacy())
}
