"""A stand-in for `vllm serve` in the launch tests: a real process with an OpenAI-compatible chat endpoint.

It takes the options the harness fills ({port}, {tp}, {max_model_len}, {max_images}) and answers every
chat request with which server it is (its port and CUDA_VISIBLE_DEVICES) and what it was started with,
so a test can see how requests spread over the servers of a node.

    python tests/fake_engine_server.py --port P [--tensor-parallel-size N] [--max-model-len L] ...
"""
from __future__ import annotations

import argparse
import json
import os

from aiohttp import web


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--tensor-parallel-size", type=int, default=1)
    ap.add_argument("--max-model-len", type=int)
    ap.add_argument("--limit-mm-per-prompt")
    args = ap.parse_args()
    me = {"port": args.port, "gpus": os.environ.get("CUDA_VISIBLE_DEVICES", ""), "tp": args.tensor_parallel_size,
          "max_model_len": args.max_model_len, "limit_mm_per_prompt": args.limit_mm_per_prompt}

    async def models(_: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "fake", "object": "model"}]})

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        text = json.dumps({"server": me, "model": body.get("model")})
        return web.json_response({
            "id": "x", "object": "chat.completion", "model": body.get("model"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    app = web.Application()
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", chat)
    web.run_app(app, host=args.host, port=args.port, print=None)


if __name__ == "__main__":
    main()
