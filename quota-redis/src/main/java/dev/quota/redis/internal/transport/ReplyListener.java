package dev.quota.redis.internal.transport;

/**
 * Told once that a command's reply completed ({@link ScriptReply#whenDone}): what waits for a
 * script's reply without a callback object of its own. The engine's flight of commands is one.
 *
 * <p>Called on whichever thread completed the reply (the Redis client's, a timer's, or the engine's
 * own when it times the reply out), or at once on the caller's thread when the reply had already
 * completed: it must not block, and only hands the reply over to be settled where the engine
 * combines.
 */
public interface ReplyListener {

    /** The reply completed: read it where the engine settles replies, not here. */
    void replied();
}
