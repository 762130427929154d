// DWARF fixture for instrument tests: build with testdata/build.sh.
int classify(int x) {
	int r = 0;
	if (x > 10) {
		r = 100;
	}
	return r + 1;
}
