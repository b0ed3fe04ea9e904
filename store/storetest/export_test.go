package storetest

import "testing"

// RunCheck runs Run's check name (any but Frontier) on the store that
// open opens, with t, which may record failures rather than fail a test:
// the self-tests run broken stores so.
func RunCheck(t testing.TB, name string, open func(dir string) State) {
	t.Helper()
	for _, c := range append([]check{{"Open", checkOpen}}, checks()...) {
		if c.name == name {
			c.run(startHarness(t, open))
			return
		}
	}
	panic("storetest: no check " + name)
}
