package fetch_test

import (
	"testing"

	"crawler/fetch"
)

func TestIsRedirect(t *testing.T) {
	for status := 100; status < 600; status++ {
		want := status == 301 || status == 302 || status == 303 || status == 307 || status == 308
		if got := fetch.IsRedirect(status); got != want {
			t.Errorf("IsRedirect(%d) = %v, want %v", status, got, want)
		}
	}
}
