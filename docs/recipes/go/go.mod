module example.com/authmockfixture

go 1.19
