package read

import (
	"image"
	"testing"
)

func TestParseTSV(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t800\t600\t-1\t\n" +
		"4\t1\t1\t1\t1\t0\t10\t20\t300\t40\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t10\t20\t120\t40\t96.5\tHello\n" +
		"5\t1\t1\t1\t1\t2\t140\t22\t150\t38\t91\tworld!\n" +
		"5\t1\t1\t1\t1\t3\t300\t22\t10\t38\t95\t \n"
	ws, err := parseTSV([]byte(tsv))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].Text != "Hello" || ws[0].Box != image.Rect(10, 20, 130, 60) || ws[1].Conf != 91 {
		t.Fatalf("got %+v", ws)
	}
}
