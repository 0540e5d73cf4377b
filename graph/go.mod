module github.com/switchboard-dev/switchboard/graph

go 1.26.8
