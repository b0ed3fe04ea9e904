package cluster

import (
	"testing"

	"github.com/nats-io/nats.go"

	"crawler/internal/natstest"
	"crawler/store"
)

// startConn starts an embedded NATS server for t and returns a connection
// to it, closed when t ends.
func startConn(t *testing.T) *nats.Conn {
	t.Helper()
	s := natstest.Start(t, t.TempDir(), -1)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// openStore opens a store in a temporary directory for t, closed when t
// ends.
func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
