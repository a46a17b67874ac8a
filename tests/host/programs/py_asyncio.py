"""asyncio: tasks recording scopes, and work handed to an executor."""
import asyncio

import bp


async def task(i):
    with bp.scope("async task"):
        await asyncio.sleep(0.001)
    return i


def blocking(i):
    bp.record("executor work", 10)
    return i * 2


async def main():
    results = await asyncio.gather(*(task(i) for i in range(20)))
    loop = asyncio.get_running_loop()
    doubled = await asyncio.gather(*(loop.run_in_executor(None, blocking, i) for i in range(8)))
    print("tasks", sum(results), "executor", sum(doubled))


asyncio.run(main())
