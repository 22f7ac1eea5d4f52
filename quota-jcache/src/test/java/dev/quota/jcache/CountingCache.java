package dev.quota.jcache;

import com.hazelcast.cache.ICache;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.TreeMap;
import javax.cache.Cache;

/**
 * A grid cache that counts the calls made to it, by method name, and passes every call on to the
 * real Hazelcast cache: what a store asks of the grid, counted on a real grid. Unwrapping it to
 * {@link ICache} (as the store does for per-entry expiry) gives the counting cache itself.
 */
final class CountingCache implements InvocationHandler {

    private final ICache<String, byte[]> real;
    private final Map<String, Integer> calls = new TreeMap<>();
    private final ICache<String, byte[]> proxy;

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

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (name.equals("unwrap") && ((Class<?>) args[0]).isInstance(proxy)) {
            return proxy;
        }
        if (method.getDeclaringClass() == Object.class) {
            return name.equals("equals") ? self == args[0] : method.invoke(this, args);
        }
        synchronized (this) {
            calls.merge(name, 1, Integer::sum);
        }
        try {
            return method.invoke(real, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
