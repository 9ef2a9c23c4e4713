package mat5_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log"

	"github.com/dpmne/dpmne/internal/mat5"
)

func ExampleRead() {
	// Make a small compressed (version 7) MAT-file in memory with the test
	// writer: a double matrix stored as miUINT8, as MATLAB stores small
	// integers, an int32 index vector and a string.
	w := writer{order: binary.LittleEndian, compress: true}
	data := w.file(
		tvar{name: "A", class: mat5.DoubleClass, dims: []int{2, 3}, store: miUINT8, real: []float64{1, 4, 2, 5, 3, 6}},
		tvar{name: "idx", class: mat5.Int32Class, dims: []int{1, 3}, store: miINT32, real: []float64{0, 5, 9}},
		tvar{name: "label", class: mat5.CharClass, dims: []int{1, 3}, store: miUTF8, rows: []string{"ACM"}},
	)

	f, err := mat5.Read(bytes.NewReader(data))
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range f.Vars {
		fmt.Println(v.Name, v.Class, v.Dims)
	}
	a, _ := f.Var("A")
	fmt.Println("A column-major:", a.Numeric.Real)
	dense, rows, cols, err := a.Dense()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("A row-major:", rows, cols, dense)
	fmt.Println("A(2,3) =", a.At(1, 2))
	label, _ := f.Var("label")
	fmt.Printf("label = %q\n", label.Char[0])

	// Output:
	// A double [2 3]
	// idx int32 [1 3]
	// label char [1 3]
	// A column-major: [1 4 2 5 3 6]
	// A row-major: 2 3 [1 2 3 4 5 6]
	// A(2,3) = 6
	// label = "ACM"
}
