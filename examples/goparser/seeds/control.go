package p

func f(xs []int, m map[string]int) (n int, err error) {
	for i, x := range xs {
		switch {
		case x < 0:
			continue
		case x > 10 && i%2 == 0:
			n += x
		default:
			goto done
		}
	}
done:
	select {
	case v := <-make(chan int):
		n = v
	default:
	}
	defer func() { recover() }()
	if v, ok := m["k"]; ok {
		return v, nil
	}
	var y interface{} = n
	switch t := y.(type) {
	case int:
		_ = t
	}
	return n, err
}
