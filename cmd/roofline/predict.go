package main

import "github.com/urfave/cli/v2"

func predictCommand() *cli.Command {
	return &cli.Command{Name: "predict", Hidden: true, Action: func(c *cli.Context) error { return usageErr("predict is not built yet") }}
}
