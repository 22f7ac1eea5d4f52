/**
 * A simulated network between the bench's Redis clients and redis-server: {@link
 * dev.quota.bench.net.DelayProxy}, a TCP proxy on loopback that holds every byte for a fixed time
 * in each direction, so the limiters pay a round trip as they would one network hop away.
 */
@NullMarked
package dev.quota.bench.net;

import org.jspecify.annotations.NullMarked;
