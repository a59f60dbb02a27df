module github.com/inferencebench/inferencebench

go 1.26.0

require (
	github.com/caarlos0/env/v11 v11.4.2
	github.com/sashabaranov/go-openai v1.43.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
)

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

tool golang.org/x/perf/cmd/benchstat
