package model

// A tiled product reads its weights again for every tile of tokens: a
// kernel that gives each compute unit a tile of weight rows and walks the
// tokens' tiles inside it (llama.cpp's CUDA MMQ, mmq.cuh's stream-k loop)
// reads each unit's rows over the whole K once per tile of tokens. Those
// re-reads come from the engine's cache when the rows its units hold at
// once fit in it, and from memory for the share that does not. The bytes
// are the model's (here), the time the simulator's (sim).

// tileShape is the weight matrices of one shape across the layers: rows
// (output features), the bytes of one row over the whole K, and the bytes
// of all the matrices of that shape (per routed expert for an expert's).
type tileShape struct {
	rows, rowBytes, bytes float64
}

// tileShapes is a cost's matrix products by shape: the dense layers' and
// one routed expert's (summed over the MoE layers).
type tileShapes struct {
	dense, expert []tileShape
}

// add counts tensor t, of b bytes over its experts, under its shape.
func (s *tileShapes) add(t *TensorCost) {
	if !t.Matmul || !t.Is2D() || t.Bytes <= 0 {
		return
	}
	list, bytes := &s.dense, t.Bytes
	if t.Routed {
		list, bytes = &s.expert, t.Bytes/float64(t.Experts)
	}
	rows := float64(t.Rows)
	rowBytes := bytes / rows
	for i := range *list {
		if sh := &(*list)[i]; sh.rows == rows && sh.rowBytes == rowBytes {
			sh.bytes += bytes
			return
		}
	}
	*list = append(*list, tileShape{rows: rows, rowBytes: rowBytes, bytes: bytes})
}

// scaled is s with every matrix's bytes times f (a tensor-parallel rank's
// share: its rows are f of the whole).
func (s *tileShapes) scaled(f float64) *tileShapes {
	if s == nil {
		return nil
	}
	o := &tileShapes{dense: make([]tileShape, len(s.dense)), expert: make([]tileShape, len(s.expert))}
	for i, sh := range s.dense {
		o.dense[i] = tileShape{rows: sh.rows * f, rowBytes: sh.rowBytes, bytes: sh.bytes * f}
	}
	for i, sh := range s.expert {
		o.expert[i] = tileShape{rows: sh.rows * f, rowBytes: sh.rowBytes, bytes: sh.bytes * f}
	}
	return o
}

// spill is the bytes of shapes that a tile's re-read takes from memory
// when the engine's units hold rowsHeld rows of a matrix at once and its
// cache holds cache bytes: of a matrix whose held rows take W = min(rows,
// rowsHeld) × rowBytes, the share 1 − cache/W does not fit (none when
// W ≤ cache). cache 0: the engine states no cache, and every re-read is
// priced from memory.
func spill(shapes []tileShape, rowsHeld, cache float64) float64 {
	var b float64
	for _, sh := range shapes {
		w := min(sh.rows, rowsHeld) * sh.rowBytes
		if w > cache {
			b += sh.bytes * (1 - cache/w)
		}
	}
	return b
}

// TileRereadBytes is the weight bytes each further tile of tokens reads
// from memory in the pass's products (beyond the first tile's read, which
// DenseBytes and ExpertBytes count): the dense layers' products', and the
// pass's reached experts' (each re-read per tile of the tokens it gets), when the engine's units hold rowsHeld rows of a
// matrix at once and cache bytes of them stay on chip (spill). The head
// and the embedding rows are read once per pass and have no tiles here.
func (m Matmuls) TileRereadBytes(rowsHeld, cache float64) (dense, expert float64) {
	if m.tiles == nil {
		return 0, 0
	}
	dense = spill(m.tiles.dense, rowsHeld, cache)
	var all float64
	for _, sh := range m.tiles.expert {
		all += sh.bytes
	}
	if all > 0 {
		// The pass's reached experts, each alike.
		expert = m.ExpertBytes * spill(m.tiles.expert, rowsHeld, cache) / all
	}
	return dense, expert
}
