package store

import "container/heap"

// hostHeap orders hosts by the seq of their first waiting entry (the ready
// hosts: breadth-first order across hosts) or by ready time (the waiting
// ones).
type hostHeap struct {
	hosts     []*hostQueue
	byReadyAt bool
}

func (q *hostHeap) len() int          { return len(q.hosts) }
func (q *hostHeap) min() *hostQueue   { return q.hosts[0] }
func (q *hostHeap) push(h *hostQueue) { h.heap = q; heap.Push((*heapOf)(q), h) }
func (q *hostHeap) remove(h *hostQueue) {
	heap.Remove((*heapOf)(q), h.index)
	h.heap, h.index = nil, -1
}
func (q *hostHeap) less(a, b *hostQueue) bool {
	if q.byReadyAt {
		return a.readyAt.Before(b.readyAt) || a.readyAt.Equal(b.readyAt) && a.id < b.id
	}
	return a.head[0].seq < b.head[0].seq
}

// heapOf adapts a hostHeap to container/heap.
type heapOf hostHeap

func (q *heapOf) Len() int           { return len(q.hosts) }
func (q *heapOf) Less(i, j int) bool { return (*hostHeap)(q).less(q.hosts[i], q.hosts[j]) }
func (q *heapOf) Swap(i, j int) {
	q.hosts[i], q.hosts[j] = q.hosts[j], q.hosts[i]
	q.hosts[i].index, q.hosts[j].index = i, j
}
func (q *heapOf) Push(x any) {
	h := x.(*hostQueue)
	h.index = len(q.hosts)
	q.hosts = append(q.hosts, h)
}
func (q *heapOf) Pop() any {
	h := q.hosts[len(q.hosts)-1]
	q.hosts = q.hosts[:len(q.hosts)-1]
	return h
}
