/**
 * Real Redis for tests, benchmarks and the demo: {@link dev.quota.testkit.RedisServer} starts a
 * redis-server process on 127.0.0.1 and a free port, {@link dev.quota.testkit.RedisSentinelTopology}
 * and {@link dev.quota.testkit.RedisClusterTopology} wire several of them into a sentinel-watched
 * master/replica pair or a three-master cluster, and {@link dev.quota.testkit.RespClient} is a tiny
 * blocking RESP2 client to look inside them. {@link dev.quota.testkit.RedisExtension} gives a JUnit 5 test
 * class one of them for its lifetime, {@link dev.quota.testkit.BusyCores} keeps every core busy while
 * a test of exact counting runs, and {@link dev.quota.testkit.Await} waits for a condition instead of
 * sleeping. The binary comes from {@link dev.quota.testkit.RedisBinary} (an explicit path, the PATH, or the
 * one shipped in the embedded-redis jar), so nothing needs to be installed; Redis 6.2 and 7.x are started
 * so that tests see the same commands (DEBUG included) on both. Nullness: parameters and return values
 * are non-null unless a method's javadoc says otherwise ({@link dev.quota.testkit.RespClient#command}
 * returns null for a nil reply; an {@link dev.quota.testkit.Await.Probe} returns null for "not yet");
 * collections are never null.
 */
package dev.quota.testkit;
