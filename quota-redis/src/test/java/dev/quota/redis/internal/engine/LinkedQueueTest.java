package dev.quota.redis.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LinkedQueueTest {

    /** An element: which adder added it, and its number among that adder's. */
    private static final class Item extends LinkedQueue.Linked<Item> {
        final int adder;
        final int number;

        Item(int adder, int number) {
            this.adder = adder;
            this.number = number;
        }
    }

    @Test
    void oneThread_takesInTheOrderAdded_andSeesWhatWaits() {
        LinkedQueue<Item> queue = new LinkedQueue<>();
        assertThat(queue.isEmpty()).isTrue();
        assertThat(queue.poll()).isNull();
        Item a = new Item(0, 0);
        Item b = new Item(0, 1);
        Item c = new Item(0, 2);
        queue.add(a);
        queue.add(b);

        assertThat(queue.isEmpty()).isFalse();
        assertThat(queue.peek()).isSameAs(a);
        assertThat(queue.first(item -> item.number == 1)).isSameAs(b);
        assertThat(queue.poll()).isSameAs(a);
        queue.add(c);
        assertThat(queue.first(item -> item.number == 0)).as("taken: no longer looked at").isNull();
        assertThat(queue.poll()).isSameAs(b);
        assertThat(a.next).as("taken, and taken past: keeps nothing queued after it reachable").isSameAs(a);
        assertThat(queue.poll()).isSameAs(c);
        assertThat(queue.poll()).isNull();
        assertThat(queue.isEmpty()).isTrue();
    }

    /**
     * Four threads add 20,000 elements each while one takes and another keeps looking through
     * what waits: every element is taken exactly once, each adder's in its order, and once every
     * adder has returned the taker finds them all (a lost or hidden element would leave it polling
     * null with elements missing); the looker, meeting elements taken under it, only ever sees
     * elements, each adder's in its order.
     */
    @Test
    void manyAdders_oneTaker_everyElementTakenOnce_inEachAddersOrder() throws InterruptedException {
        int adders = 4;
        int each = 20_000;
        LinkedQueue<Item> queue = new LinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger finished = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int a = 0; a < adders; a++) {
            int adder = a;
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int n = 0; n < each; n++) {
                    queue.add(new Item(adder, n));
                }
                finished.incrementAndGet();
            });
            thread.start();
            threads.add(thread);
        }
        AtomicInteger looks = new AtomicInteger();
        List<String> lookerSaw = new ArrayList<>();
        Thread looker = new Thread(() -> {
            while (finished.get() < adders || !queue.isEmpty()) {
                int[] lastOf = {-1, -1, -1, -1};
                Item none = queue.first(item -> {
                    if (item.number <= lastOf[item.adder]) {
                        lookerSaw.add("adder " + item.adder + ": " + item.number + " after " + lastOf[item.adder]);
                    }
                    lastOf[item.adder] = item.number;
                    return false;
                });
                if (none != null) {
                    lookerSaw.add("accepted " + none.number);
                }
                Item first = queue.peek();
                if (first != null && first.number < 0) {
                    lookerSaw.add("peeked " + first.number);
                }
                looks.incrementAndGet();
            }
        });
        looker.start();
        int[] nextOf = new int[adders];
        int taken = 0;
        start.countDown();
        while (taken < adders * each) {
            boolean allAdded = finished.get() == adders; // read before polling: all added by then
            Item item = queue.poll();
            if (item == null) {
                assertThat(allAdded).as("nothing to take while every adder has returned, %d taken", taken)
                        .isFalse();
                Thread.onSpinWait();
                continue;
            }
            assertThat(item.number).as("adder %d's order", item.adder).isEqualTo(nextOf[item.adder]);
            nextOf[item.adder]++;
            taken++;
        }
        for (Thread thread : threads) {
            thread.join();
        }
        looker.join();
        assertThat(queue.poll()).isNull();
        assertThat(nextOf).containsOnly(each);
        assertThat(lookerSaw).isEmpty();
        assertThat(looks.get()).isPositive();
    }
}
