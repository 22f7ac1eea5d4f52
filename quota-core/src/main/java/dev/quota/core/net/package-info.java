/**
 * Client addresses without DNS: {@link dev.quota.core.net.Cidr} ranges for allow-lists and trusted
 * proxies, and {@link dev.quota.core.net.ClientAddresses} to parse literals, follow
 * {@code X-Forwarded-For} through trusted proxies only, and group IPv6 callers by prefix. Nothing
 * here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.core.net;

import org.jspecify.annotations.NullMarked;
