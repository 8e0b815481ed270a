package sentry

import (
	"fmt"

	"github.com/atma-dev/atma/sentry/gate"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// netGraph is the Gorgonia training graph of both heads (and the pair head, if any) for
// batches of at most batch pairs.
// A smaller batch is padded with copies of its first pair whose loss weight is zero, and the
// real pairs weigh 1/n each, so the loss and its gradients are exactly those of a graph built
// for n pairs.
type netGraph struct {
	g     *G.ExprGraph
	vm    G.VM
	dt    tensor.Dtype
	batch int
	dims  gate.Layout // the heads' sizes; the input size is dims.In

	u, p, yTop, yLog, w *G.Node   // inputs: [batch, in], [batch, in], [batch], [batch], [batch]
	params              []*G.Node // in dims.Names order
	lossTop, lossLog    G.Value   // Σ w·(s − y)² per head (the batch's mean squared error)
	loss                G.Value   // α·lossTop + β·lossLog
}

// newNetGraph builds the graph with parameters copied from h, in float32 or float64.
func newNetGraph(h *gate.Heads, batch int, alpha, beta float64, dt tensor.Dtype) (n *netGraph, err error) {
	if err := h.Validate(); err != nil {
		return nil, fmt.Errorf("build training graph: %w", err)
	}
	if dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("build training graph: unsupported dtype %v", dt)
	}
	n = &netGraph{g: G.NewGraph(), dt: dt, batch: batch, dims: gate.LayoutOf(h)}
	g := n.g
	mat := func(name string, rows, cols int) *G.Node {
		return G.NewMatrix(g, dt, G.WithShape(rows, cols), G.WithName(name),
			G.WithValue(tensor.New(tensor.Of(dt), tensor.WithShape(rows, cols))))
	}
	vec := func(name string, size int) *G.Node {
		return G.NewVector(g, dt, G.WithShape(size), G.WithName(name),
			G.WithValue(tensor.New(tensor.Of(dt), tensor.WithShape(size))))
	}
	n.u = mat("u", batch, n.dims.In)
	n.p = mat("p", batch, n.dims.In)
	n.yTop = vec("y_top", batch)
	n.yLog = vec("y_log", batch)
	n.w = vec("w", batch)
	names := n.dims.Names()
	n.params = make([]*G.Node, len(names))
	for i, hd := range []*gate.Head{&h.Topic, &h.Logic} {
		n.params[4*i+0] = mat(names[4*i+0], hd.In, hd.Hidden)
		n.params[4*i+1] = mat(names[4*i+1], 1, hd.Hidden)
		n.params[4*i+2] = mat(names[4*i+2], hd.Hidden, hd.Out)
		n.params[4*i+3] = mat(names[4*i+3], 1, hd.Out)
	}
	if ph := h.Pair; ph != nil {
		n.params[8] = mat(names[8], 2*ph.In, ph.Hidden)
		n.params[9] = mat(names[9], 1, ph.Hidden)
		n.params[10] = mat(names[10], ph.Hidden, 1)
		n.params[11] = mat(names[11], 1, 1)
	}
	n.setHeads(h)

	// Construction errors are shape bugs in this function; must turns them into a panic that
	// the deferred recover hands back as an error, so a failed step never feeds nil onward.
	type buildError struct{ err error }
	defer func() {
		if r := recover(); r != nil {
			be, ok := r.(buildError)
			if !ok {
				panic(r)
			}
			n, err = nil, fmt.Errorf("build training graph: %w", be.err)
		}
	}()
	must := func(x *G.Node, e error) *G.Node {
		if e != nil {
			panic(buildError{e})
		}
		return x
	}
	scalar := func(v float64) *G.Node {
		if dt == tensor.Float32 {
			return G.NewConstant(float32(v))
		}
		return G.NewConstant(v)
	}
	eps := scalar(gate.NormEps)
	// head returns the un-normalised output o and Σo² + NormEps per row.
	head := func(x *G.Node, ps []*G.Node, act gate.Activation) (o, sq *G.Node) {
		a := must(G.BroadcastAdd(must(G.Mul(x, ps[0])), ps[1], nil, []byte{0}))
		if act == gate.ReLU {
			a = must(G.Rectify(a))
		} else {
			a = must(G.Tanh(a))
		}
		o = must(G.BroadcastAdd(must(G.Mul(a, ps[2])), ps[3], nil, []byte{0}))
		return o, must(G.Add(must(G.Sum(must(G.Square(o)), 1)), eps))
	}
	// ⟨o_u/‖o_u‖, o_p/‖o_p‖⟩ = ⟨o_u, o_p⟩ / sqrt(‖o_u‖²·‖o_p‖²), with ‖o‖² = Σo² + NormEps:
	// the same function as normalising first, without broadcasting the norms over the rows.
	headLoss := func(ps []*G.Node, act gate.Activation, y *G.Node) *G.Node {
		ou, squ := head(n.u, ps, act)
		op, sqp := head(n.p, ps, act)
		dotp := must(G.Sum(must(G.HadamardProd(ou, op)), 1))
		s := must(G.HadamardDiv(dotp, must(G.Sqrt(must(G.HadamardProd(squ, sqp))))))
		return must(G.Sum(must(G.HadamardProd(must(G.Square(must(G.Sub(s, y)))), n.w))))
	}
	// pairLoss scores the pair from the normalised logic vectors z_u, z_p instead:
	// s = tanh(ReLU([|z_u − z_p|, z_u ⊙ z_p]·W1 + b1)·W2 + b2), as gate.PairHead.Score.
	pairLoss := func(ps, pp []*G.Node, y *G.Node) *G.Node {
		unit := func(x *G.Node) *G.Node {
			o, sq := head(x, ps, gate.Tanh)
			// 1/sqrt, not G.InverseSqrt: Gorgonia's gradient of InverseSqrt is wrong
			// (TestPairGradientCheck catches it).
			inv := must(G.Reshape(must(G.Inverse(must(G.Sqrt(sq)))), tensor.Shape{batch, 1}))
			return must(G.BroadcastHadamardProd(o, inv, nil, []byte{1}))
		}
		zu, zp := unit(n.u), unit(n.p)
		feat := must(G.Concat(1, must(G.Abs(must(G.Sub(zu, zp)))), must(G.HadamardProd(zu, zp))))
		hid := must(G.Rectify(must(G.BroadcastAdd(must(G.Mul(feat, pp[0])), pp[1], nil, []byte{0}))))
		// Reshape before Tanh: Gorgonia's gradient of a Reshape of a Tanh is wrong.
		o := must(G.BroadcastAdd(must(G.Mul(hid, pp[2])), pp[3], nil, []byte{0}))
		s := must(G.Tanh(must(G.Reshape(o, tensor.Shape{batch}))))
		return must(G.Sum(must(G.HadamardProd(must(G.Square(must(G.Sub(s, y)))), n.w))))
	}
	lt := headLoss(n.params[0:4], gate.ReLU, n.yTop)
	var ll *G.Node
	if h.Pair != nil {
		ll = pairLoss(n.params[4:8], n.params[8:12], n.yLog)
	} else {
		ll = headLoss(n.params[4:8], gate.Tanh, n.yLog)
	}
	loss := must(G.Add(must(G.Mul(scalar(alpha), lt)), must(G.Mul(scalar(beta), ll))))
	roots := G.Nodes{G.Read(lt, &n.lossTop), G.Read(ll, &n.lossLog), G.Read(loss, &n.loss)}
	grads, err := G.Grad(loss, n.params...)
	if err != nil {
		return nil, fmt.Errorf("build training graph: gradients: %w", err)
	}
	// Differentiating x·W also builds the gradient with respect to the input embeddings,
	// which nothing needs; compiling only what the losses and parameter gradients depend on
	// leaves those products (a fifth of the work) out.
	roots = append(roots, grads...)
	n.vm = G.NewTapeMachine(g.SubgraphRoots(roots...), G.BindDualValues(n.params...))
	return n, nil
}

// close releases the VM.
func (n *netGraph) close() error { return n.vm.Close() }

// data returns a node's backing slice: []float32 or []float64.
func data(x *G.Node) any { return x.Value().Data() }

// grad returns the backing slice of a parameter's gradient after a run.
func (n *netGraph) grad(i int) (any, error) {
	v, err := n.params[i].Grad()
	if err != nil {
		return nil, fmt.Errorf("gradient of %s: %w", n.dims.Names()[i], err)
	}
	return v.Data(), nil
}

// grads returns the backing slices of every parameter's gradient after a run, in params
// order, for the optimizer.
func (n *netGraph) grads() ([]any, error) {
	gs := make([]any, len(n.params))
	for i := range gs {
		var err error
		if gs[i], err = n.grad(i); err != nil {
			return nil, err
		}
	}
	return gs, nil
}

// run computes the loss and gradients of batch, which holds 1 to n.batch examples, and
// returns the per-head mean squared errors.
func (n *netGraph) run(batch []Example) (top, log float64, err error) {
	if len(batch) == 0 || len(batch) > n.batch {
		return 0, 0, fmt.Errorf("batch of %d examples for a graph of %d", len(batch), n.batch)
	}
	wt := 1 / float64(len(batch))
	switch n.dt {
	case tensor.Float32:
		fill(n, batch, float32(wt), data(n.u).([]float32), data(n.p).([]float32),
			data(n.yTop).([]float32), data(n.yLog).([]float32), data(n.w).([]float32))
	default:
		fill(n, batch, wt, data(n.u).([]float64), data(n.p).([]float64),
			data(n.yTop).([]float64), data(n.yLog).([]float64), data(n.w).([]float64))
	}
	// The VM adds each run's gradients to the bound dual values, so clear them first.
	for i, p := range n.params {
		g, err := p.Grad()
		if err != nil {
			return 0, 0, fmt.Errorf("gradient of %s: %w", n.dims.Names()[i], err)
		}
		if g, ok := g.(*tensor.Dense); ok { // nil before the first run
			g.Zero()
		}
	}
	n.vm.Reset()
	if err := n.vm.RunAll(); err != nil {
		return 0, 0, fmt.Errorf("run training graph: %w", err)
	}
	return scalarOf(n.lossTop), scalarOf(n.lossLog), nil
}

func fill[T float32 | float64](n *netGraph, batch []Example, wt T, u, p, yt, yl, w []T) {
	d := n.dims.In
	for i := range n.batch {
		ex, weight := batch[0], T(0)
		if i < len(batch) {
			ex, weight = batch[i], wt
		}
		for j := range d {
			u[i*d+j] = T(ex.U[j])
			p[i*d+j] = T(ex.P[j])
		}
		yt[i], yl[i], w[i] = T(ex.YTop), T(ex.YLog), weight
	}
}

func scalarOf(v G.Value) float64 {
	switch x := v.Data().(type) {
	case float32:
		return float64(x)
	case float64:
		return x
	}
	panic(fmt.Sprintf("sentry: loss of type %T", v.Data()))
}

// setHeads copies h into the graph's parameters (transposition-free: both are input-major).
func (n *netGraph) setHeads(h *gate.Heads) {
	for i, src := range gate.Params(h) {
		switch dst := data(n.params[i]).(type) {
		case []float32:
			copy(dst, *src)
		case []float64:
			for k, v := range *src {
				dst[k] = float64(v)
			}
		}
	}
}

// paramData returns the parameters' backing slices, for the optimizer.
func (n *netGraph) paramData() []any {
	ps := make([]any, len(n.params))
	for i, p := range n.params {
		ps[i] = data(p)
	}
	return ps
}

// heads returns the graph's parameters as Heads (rounded to float32 for a float64 graph).
func (n *netGraph) heads() *gate.Heads {
	params := make([][]float32, len(n.params))
	for i, p := range n.params {
		switch src := data(p).(type) {
		case []float32:
			params[i] = append([]float32(nil), src...)
		case []float64:
			s := make([]float32, len(src))
			for k, v := range src {
				s[k] = float32(v)
			}
			params[i] = s
		}
	}
	return n.dims.Heads(params)
}
