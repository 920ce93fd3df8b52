package main

import (
	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/render"

	"github.com/urfave/cli/v2"

	"github.com/roofline/roofline/sim"
)

const chatUsage = `roofline chat --model M --hardware H [flags]

A local assistant is a conversation, not one request. chat prices --turns
turns of a --user-tokens message answered by --reply-tokens, after a
--system-tokens system prompt, under three ways of treating the history:

  keep-kv       the KV cache stays between turns (llama.cpp server, Ollama):
                each turn prefills only the new message
  prefix-cache  only the system prompt is cached (vLLM/SGLang prefix
                caching): each turn re-prefills the history after it
  recompute     each turn re-prefills the whole conversation

When the conversation outgrows the context limit (the model's maximum or
what fits in memory) the oldest whole turns are dropped, never the system
prompt; under keep-kv the kept cache is shifted in place (llama.cpp context
shift), which costs one read and write of its K half.

It then reports the cold start (model load from storage, the system prompt,
the first turn), energy per token and per answer from the engine's power,
the average draw at --duty-cycle with its idle draw between answers, and
with --battery-wh the hours a charge lasts and the answers it powers (for
each power mode of the device), how per-chat TTFT and TPOT degrade as
concurrent chats share the device, and, with --draft, speculative decoding.
Exit status: 0, or 3 when the conversation does not fit in usable memory
(DOES NOT FIT, first).

Examples:
  roofline chat --model llama-3.2-3b --hardware jetson-orin-nano-super-8gb --weights q4_k_m
  roofline chat --model qwen2.5-1.5b --hardware rk3588 --engine npu --turns 20 --storage sd --battery-wh 37
  roofline chat --model llama-3.1-8b --hardware jetson-orin-nano-super-8gb --weights q4_k_m --draft llama-3.2-1b --acceptance 0.7`

func chatCommand() *cli.Command {
	flags := append(setupFlags(),
		&cli.IntFlag{Name: "turns", Value: 10, Usage: "turns in the conversation"},
		tokensFlag("system-tokens", nil, 500, "system prompt tokens (`N`; k = 1024)"),
		tokensFlag("user-tokens", nil, 50, "tokens of each user message (`N`)"),
		tokensFlag("reply-tokens", nil, 150, "tokens of each reply (`N`)"),
		&cli.StringFlag{Name: "strategy", Value: "all", Usage: "history `STRATEGY`: keep-kv, prefix-cache, recompute or all (side by side)"},
		ubatchFlag(),
		&cli.IntFlag{Name: "max-chats", Value: 8, Usage: "show 1 … `N` concurrent chats (the limits are searched beyond)"},
		&cli.StringFlag{Name: "ttft", Value: "1s", Usage: "TTFT target for the concurrency limits (`DURATION`)"},
		&cli.StringFlag{Name: "tpot", Value: "200ms", Usage: "TPOT target for the concurrency limits (`DURATION`)"},
	)
	flags = append(flags, extraFlags()...)
	flags = append(flags, formatFlag(chatFormats))
	return &cli.Command{
		Name:      "chat",
		Usage:     "multi-turn conversation, cold start, energy, concurrent chats and speculative decoding",
		UsageText: chatUsage,
		Flags:     flags,
		Action:    chatAction,
	}
}

var chatFormats = render.DocFormats

func chatAction(c *cli.Context) error {
	f, err := outputFormat(c, chatFormats)
	if err != nil {
		return err
	}
	if err := noExtraArgs(c, 0); err != nil {
		return err
	}
	ub, err := ubatch(c)
	if err != nil {
		return err
	}
	req := app.ChatRequest{Strategies: sim.Strategies, MaxChats: c.Int("max-chats"),
		Conversation: sim.Conversation{Turns: c.Int("turns"), System: c.Int("system-tokens"), User: c.Int("user-tokens"), Reply: c.Int("reply-tokens"), UBatch: ub}}
	if err := req.Conversation.Validate(); err != nil {
		return usageErr("%v", err)
	}
	if st := c.String("strategy"); st != "all" {
		s, err := sim.ParseStrategy(st)
		if err != nil {
			return usageErr("--strategy: %v", err)
		}
		req.Strategies = []sim.Strategy{s}
	}
	if req.Targets, err = targets(c); err != nil {
		return err
	}
	if req.MaxChats < 1 || req.MaxChats > 4096 {
		return usageErr("--max-chats %d: want 1 … 4096", req.MaxChats)
	}
	if req.Power, req.Draft, err = extras(c); err != nil {
		return err
	}
	if req.Setup, err = selection(c); err != nil {
		return err
	}
	env, err := environment(c)
	if err != nil {
		return err
	}
	ch, err := env.Chat(req)
	if err != nil {
		return flagged(err)
	}
	if n := quantizedVNote(!ch.Inputs.FlashAttention, ch.Inputs.Runtime, ch.Inputs.KV); n != "" {
		render.Warn(c.App.ErrWriter, n)
	}
	draftFits := ch.Speculative == nil || ch.Speculative.Fits
	if err := write(c, f, render.Chat(ch)); err != nil || ch.NotFit == nil && draftFits {
		return err
	}
	if ch.NotFit == nil {
		return doesNotFit{ch.Inputs.Model + " with the draft " + ch.Speculative.Draft, ch.Inputs.Device}
	}
	return doesNotFit{ch.Inputs.Model, ch.Inputs.Device}
}
