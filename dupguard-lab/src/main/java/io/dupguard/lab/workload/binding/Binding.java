package io.dupguard.lab.workload.binding;

import io.dupguard.lab.storm.Request;

/**
 * "Bind this account's OpenID to this device": what a mobile client sends on every app start.
 *
 * @param openId the account identifier; must end up in exactly one row
 * @param localId the device's local identifier
 */
record Binding(String openId, String localId) implements Request {
    @Override
    public String key() {
        return openId;
    }
}
