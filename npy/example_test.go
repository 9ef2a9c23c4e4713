package npy_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/dpmne/dpmne/npy"
)

func Example() {
	var buf bytes.Buffer
	err := npy.WriteFloat32(&buf, []int{2, 3}, []float32{1, 2, 3, 4.5, 5, 6})
	if err != nil {
		log.Fatal(err)
	}
	header := buf.Bytes()[:128]
	fmt.Printf("%q + spaces + %q\n", bytes.TrimRight(header, " \n"), header[127:])

	a, err := npy.Read(&buf)
	if err != nil {
		log.Fatal(err)
	}
	v, err := a.Float64s()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Descr, a.Shape, v)

	// Output:
	// "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" + spaces + "\n"
	// <f4 [2 3] [1 2 3 4.5 5 6]
}
