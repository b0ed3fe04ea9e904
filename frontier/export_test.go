package frontier

// Credit reports the credit page fp holds now, for tests of AOPIC's
// accounting.
func (a *AOPIC) Credit(fp uint64) float64 {
	i, ok := a.byFP[fp]
	if !ok {
		return 0
	}
	p := &a.pages[i]
	if p.waiting() {
		return p.credit + a.spread
	}
	return p.credit
}

// Lambda reports the credit held by AOPIC's virtual page lambda.
func (a *AOPIC) Lambda() float64 { return a.lambda }

// Received reports the credit received by all pages so far.
func (a *AOPIC) Received() float64 { return a.received }
