// Package natstest runs an embedded NATS server with JetStream on
// 127.0.0.1 for the tests of the cluster package and of the commands that
// join a cluster. It is not for users: they run a nats-server (see the
// README).
package natstest

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Start starts an embedded NATS server with JetStream on 127.0.0.1 and
// port (-1: any free one), its store in dir, shut down when the test ends
// (by Shutdown).
func Start(t testing.TB, dir string, port int) *server.Server {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS server not ready")
	}
	t.Cleanup(func() { Shutdown(t, s) })
	return s
}

// Shutdown shuts s down, if it still runs, after deleting its streams:
// a server that stops a crawl's file-stored consumers (one or two per
// partition) waits about 10 ms for each one's flusher, 5 s in all, where
// deleting them takes a tenth of a second. A stream it cannot delete is
// logged, and then stopped by the shutdown as usual.
func Shutdown(t testing.TB, s *server.Server) {
	t.Helper()
	if !s.Running() {
		return
	}
	defer s.Shutdown()
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Logf("NATS streams not deleted before shutdown: %v", err)
		return
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Logf("NATS streams not deleted before shutdown: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	names := js.StreamNames(ctx)
	for name := range names.Name() {
		if err := js.DeleteStream(ctx, name); err != nil {
			t.Logf("NATS stream %s not deleted before shutdown: %v", name, err)
		}
	}
	if err := names.Err(); err != nil {
		t.Logf("NATS streams not all deleted before shutdown: %v", err)
	}
}
