module github.com/switchboard-dev/switchboard/backend

go 1.26.8
