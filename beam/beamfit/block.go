package beamfit

import (
	"encoding/binary"
	"fmt"
	"math"
)

// A block is a run of consecutive rows of an n×w matrix: the rows a shard
// holds (lo … lo+rows−1), or a partial sum of them from one column shard of
// a sparse product. Blocks are what the pipelines' PCollections carry,
// encoded by encode as a []byte (Beam's cheapest coder), keyed by key.
type block struct {
	view  int // the view it belongs to, or −1
	shard int // the row shard
	lo    int // its first row
	rows  int // its number of rows
	width int // its number of columns
	// idx, when not nil, lists the rows (as offsets from lo) that data
	// holds, len(idx)×width: a partial sum that reaches a few rows of the
	// shard. Rows not listed are zero.
	idx  []int32
	data []float64 // rows×width (or len(idx)×width), row-major; nil: all zeros
}

// key packs a view (−1 for none) and a shard into one KV key.
func key(view, shard int) int64 { return int64(view+1)<<32 | int64(shard) }

// unkey is key's inverse.
func unkey(k int64) (view, shard int) { return int(k>>32) - 1, int(k & 0xffffffff) }

const blockHeader = 6 * 8

func (b *block) encode() []byte {
	ni := len(b.idx)
	out := make([]byte, blockHeader+4*ni+8*len(b.data))
	for i, v := range []int{b.view, b.shard, b.lo, b.rows, b.width, ni} {
		binary.LittleEndian.PutUint64(out[8*i:], uint64(int64(v)))
	}
	for i, r := range b.idx {
		binary.LittleEndian.PutUint32(out[blockHeader+4*i:], uint32(r))
	}
	p := out[blockHeader+4*ni:]
	for i, v := range b.data {
		binary.LittleEndian.PutUint64(p[8*i:], math.Float64bits(v))
	}
	return out
}

func decodeBlock(p []byte) (*block, error) {
	if len(p) < blockHeader {
		return nil, fmt.Errorf("beamfit: block of %d bytes: want at least %d", len(p), blockHeader)
	}
	var h [6]int
	for i := range h {
		h[i] = int(int64(binary.LittleEndian.Uint64(p[8*i:])))
	}
	b := &block{view: h[0], shard: h[1], lo: h[2], rows: h[3], width: h[4]}
	ni := h[5]
	if b.rows < 0 || b.width < 0 || ni < 0 || ni > b.rows || 4*ni > len(p)-blockHeader {
		return nil, fmt.Errorf("beamfit: block of %d×%d rows listing %d", b.rows, b.width, ni)
	}
	rows := b.rows
	if ni > 0 {
		b.idx = make([]int32, ni)
		for i := range b.idx {
			r := int32(binary.LittleEndian.Uint32(p[blockHeader+4*i:]))
			if r < 0 || int(r) >= b.rows {
				return nil, fmt.Errorf("beamfit: block of %d rows lists row %d", b.rows, r)
			}
			b.idx[i] = r
		}
		rows = ni
	}
	body := p[blockHeader+4*ni:]
	switch {
	case len(body) == 0 && ni == 0:
		return b, nil
	case len(body) != 8*rows*b.width:
		return nil, fmt.Errorf("beamfit: block of %d×%d holds %d bytes, want %d", rows, b.width, len(body), 8*rows*b.width)
	}
	b.data = make([]float64, rows*b.width)
	for i := range b.data {
		b.data[i] = math.Float64frombits(binary.LittleEndian.Uint64(body[8*i:]))
	}
	return b, nil
}

// dense returns b's data, allocating zeros for a block that has none.
func (b *block) dense() []float64 {
	if b.data == nil {
		b.data = make([]float64, b.rows*b.width)
	}
	return b.data
}

// add sets b += c, for b dense and c dense or listing its rows (same
// shard and width).
func (b *block) add(c *block) error {
	if b.rows != c.rows || b.width != c.width || b.lo != c.lo || b.idx != nil {
		return fmt.Errorf("beamfit: adding a %d×%d block at row %d to a %d×%d one at row %d", c.rows, c.width, c.lo, b.rows, b.width, b.lo)
	}
	if c.data == nil {
		return nil
	}
	d, w := b.dense(), b.width
	if c.idx == nil {
		for i, v := range c.data {
			d[i] += v
		}
		return nil
	}
	for k, r := range c.idx {
		dst, src := d[int(r)*w:int(r+1)*w], c.data[k*w:(k+1)*w]
		for i, v := range src {
			dst[i] += v
		}
	}
	return nil
}

// encodeFloats and decodeFloats carry the vectors of sums the combines add
// up (Gram matrices, inner products) and the drivers' parameters.
func encodeFloats(v []float64) []byte {
	out := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(x))
	}
	return out
}

func decodeFloats(p []byte) ([]float64, error) {
	if len(p)%8 != 0 {
		return nil, fmt.Errorf("beamfit: %d bytes of float64s", len(p))
	}
	v := make([]float64, len(p)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
	}
	return v, nil
}
