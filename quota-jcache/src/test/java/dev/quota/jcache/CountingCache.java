package dev.quota.jcache;

import com.hazelcast.cache.ICache;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import javax.cache.Cache;
import org.jspecify.annotations.Nullable;

/**
 * A grid cache that counts the calls made to it, by method name, and passes every call on to the
 * real Hazelcast cache: what a store asks of the grid, counted on a real grid. Unwrapping it to
 * {@link ICache} (as the store does for per-entry expiry) gives the counting cache itself.
 */
final class CountingCache implements InvocationHandler {

    private final ICache<String, byte[]> real;
    private final Map<String, Integer> calls = new TreeMap<>();
    private final ICache<String, byte[]> proxy;
    private @Nullable Hold hold;

    @SuppressWarnings("unchecked")
    private CountingCache(Cache<String, byte[]> cache) {
        this.real = cache.unwrap(ICache.class);
        this.proxy = (ICache<String, byte[]>) Proxy.newProxyInstance(CountingCache.class.getClassLoader(),
                new Class<?>[] {ICache.class}, this);
    }

    /** Counts the calls to {@code cache}. */
    static CountingCache of(Cache<String, byte[]> cache) {
        return new CountingCache(cache);
    }

    /** The cache to give the store. */
    Cache<String, byte[]> cache() {
        return proxy;
    }

    /** The calls since the last {@link #reset}, by method name. */
    synchronized Map<String, Integer> calls() {
        return new TreeMap<>(calls);
    }

    synchronized void reset() {
        calls.clear();
    }

    /** Holds the next call of {@code method} (counted) before it reaches the grid, until released. */
    synchronized Hold holdNext(String method) {
        hold = new Hold(method);
        return hold;
    }

    /** A held call: {@link #reached} once its caller is held; then let through, or failed. */
    static final class Hold {
        final String method;
        final CountDownLatch reached = new CountDownLatch(1);
        private final CompletableFuture<@Nullable RuntimeException> outcome = new CompletableFuture<>();

        Hold(String method) {
            this.method = method;
        }

        /** Lets the held call go on to the grid. */
        void release() {
            outcome.complete(null);
        }

        /** Fails the held call with {@code failure}, as a grid that cannot be reached would. */
        void fail(RuntimeException failure) {
            outcome.complete(failure);
        }

        void await() throws InterruptedException, ExecutionException {
            reached.countDown();
            RuntimeException failure = outcome.get();
            if (failure != null) {
                throw failure;
            }
        }
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (name.equals("unwrap") && ((Class<?>) args[0]).isInstance(proxy)) {
            return proxy;
        }
        if (method.getDeclaringClass() == Object.class) {
            return name.equals("equals") ? self == args[0] : method.invoke(this, args);
        }
        Hold held = null;
        synchronized (this) {
            calls.merge(name, 1, Integer::sum);
            if (hold != null && hold.method.equals(name)) {
                held = hold;
                hold = null;
            }
        }
        if (held != null) {
            held.await();
        }
        try {
            return method.invoke(real, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
