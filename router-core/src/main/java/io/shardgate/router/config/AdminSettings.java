package io.shardgate.router.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code admin} section: the accounts of the SQL admin endpoint ({@code server.admin_port},
 * default 6032), kept apart from the application users. Without accounts the endpoint is not
 * started: there is no default password to forget to change.
 *
 * @param users who may log in to the SQL admin endpoint ({@code password} or {@code password_hash},
 *     as application users)
 */
public record AdminSettings(List<UserConfig> users) {
    public AdminSettings {
        users = users == null ? List.of() : List.copyOf(users);
    }

    static AdminSettings defaults() {
        return new AdminSettings(null);
    }

    /** True when the SQL admin endpoint has accounts and so is started. */
    public boolean sqlEndpointEnabled() {
        return !users.isEmpty();
    }

    List<String> validate() {
        List<String> problems = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (UserConfig user : users) {
            if (!names.add(user.name())) {
                problems.add("admin.users: duplicate user '" + user.name() + "'");
            }
        }
        return problems;
    }
}
