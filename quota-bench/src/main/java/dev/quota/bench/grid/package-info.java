/**
 * The grid scenario: the JCache store against Bucket4j's own JCache proxy manager, on a three-member
 * embedded Hazelcast grid whose members are separate JVMs, each also an instance deciding (as Payara
 * servers are). {@link dev.quota.bench.grid.GridBench} runs it; {@link dev.quota.bench.grid.GridMember}
 * is one member.
 */
@NullMarked
package dev.quota.bench.grid;

import org.jspecify.annotations.NullMarked;
