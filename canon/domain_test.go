package canon

import "testing"

func TestInDomains(t *testing.T) {
	domains := []string{"example.com", "b.test"}
	for _, tt := range []struct {
		host string
		want bool
	}{
		{"example.com", true},
		{"www.example.com", true},
		{"a.b.example.com:8080", true},
		{"badexample.com", false}, // a suffix, not a subdomain
		{"example.com.evil", false},
		{"b.test:80", true},
		{"test", false},
		{"[::1]:80", false},
	} {
		if got := InDomains(tt.host, domains); got != tt.want {
			t.Errorf("InDomains(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
	if InDomains("example.com", nil) {
		t.Error("InDomains with no domains = true")
	}
}
