package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/atma-dev/atma/overlay/apikey"
	"github.com/atma-dev/atma/overlay/store"
)

func newCmdOverlayKeys(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys <command>",
		Short: "Create, list and revoke the API keys of `atma overlay serve`",
		Long: `API keys for the overlay's HTTP API, stored in the bank (the secret as its SHA-256 only).
A key is bound to a tenant: a request's user u is the bank's user "<tenant>/u", so a key
never reaches another tenant's users; --users binds it to some of them only. Scopes: read
(list, get, query, traces, search tools), write (add, delete records, write tools), admin
(delete a whole user, metrics). Once the bank has an active key, the server needs a key
(or its --token) on every request but /healthz and /openapi.json, and may listen beyond
loopback.`,
		Example: `  atma overlay keys create --tenant acme --scopes read,write --name support-bot
  atma overlay keys create --tenant acme --users alice,bob --scopes read
  atma overlay keys list
  atma overlay keys revoke 3f9c0a1b2c3d`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCmdOverlayKeysCreate(f, nil), newCmdOverlayKeysList(f, nil), newCmdOverlayKeysRevoke(f, nil))
	return cmd
}

// overlayKeysCreateOptions are the flags of `atma overlay keys create`.
type overlayKeysCreateOptions struct {
	overlayOptions
	Name   string // default: Tenant as given
	Tenant string
	Users  []string // normalised; none: all the tenant's users
	Scopes []apikey.Scope
}

func newCmdOverlayKeysCreate(f *Factory, runF func(context.Context, *overlayKeysCreateOptions) error) *cobra.Command {
	opts := &overlayKeysCreateOptions{}
	var users, scopes []string
	cmd := &cobra.Command{
		Use:     "create --tenant T [--users U,…] [--scopes read,write]",
		Short:   "Create an API key and print its token (shown this once)",
		Example: "  atma overlay keys create --tenant acme --scopes read,write --name support-bot\n  atma overlay keys create --tenant acme --users alice --scopes read --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Tenant == "" {
				return usagef("--tenant is required")
			}
			if opts.Name == "" {
				opts.Name = opts.Tenant
			}
			opts.Tenant = store.NormalizeUser(opts.Tenant)
			opts.Scopes = make([]apikey.Scope, len(scopes))
			for i, s := range scopes {
				opts.Scopes[i] = apikey.Scope(strings.TrimSpace(s))
			}
			opts.Users = nil
			for _, u := range users {
				opts.Users = append(opts.Users, store.NormalizeUser(strings.TrimSpace(u)))
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return overlayKeysCreateRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags(), false)
	cmd.Flags().StringVar(&opts.Tenant, "tenant", "", "the tenant namespace the key reaches (required)")
	cmd.Flags().StringVar(&opts.Name, "name", "", "a name to recognise the key by (default: the tenant)")
	cmd.Flags().StringSliceVar(&users, "users", nil, "only these users of the tenant (default: all)")
	cmd.Flags().StringSliceVar(&scopes, "scopes", []string{"read", "write"}, "read, write, admin")
	hideUserFlag(cmd)
	return cmd
}

func overlayKeysCreateRun(ctx context.Context, f *Factory, opts *overlayKeysCreateOptions) error {
	env, err := f.openOverlay(ctx, &opts.overlayOptions, false)
	if err != nil {
		return err
	}
	defer env.Close()
	k, token, err := env.bank.Keys.Create(ctx, opts.Name, opts.Tenant, opts.Users, opts.Scopes)
	if err != nil {
		return usageError{err}
	}
	if opts.JSON {
		return json.NewEncoder(f.IO.Out).Encode(struct {
			apikey.Key
			Token string `json:"token"`
		}{k, token})
	}
	fmt.Fprintf(f.IO.Out, "key %s for tenant %s (%s)\n", k.ID, k.Tenant, describeKey(k))
	fmt.Fprintf(f.IO.Out, "token (shown once; keep it secret): %s\n", token)
	return nil
}

func newCmdOverlayKeysList(f *Factory, runF func(context.Context, *overlayOptions) error) *cobra.Command {
	opts := &overlayOptions{}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the API keys (never their secrets)",
		Example: "  atma overlay keys list\n  atma overlay keys list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return overlayKeysListRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags(), false)
	hideUserFlag(cmd)
	return cmd
}

func overlayKeysListRun(ctx context.Context, f *Factory, opts *overlayOptions) error {
	env, err := f.openExisting(ctx, opts, false)
	if err != nil {
		return err
	}
	defer env.Close()
	keys, err := env.bank.Keys.List(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		if keys == nil {
			keys = []apikey.Key{}
		}
		return json.NewEncoder(f.IO.Out).Encode(keys)
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tTENANT\tACCESS\tCREATED\tREVOKED")
	for _, k := range keys {
		revoked := "-"
		if !k.Revoked.IsZero() {
			revoked = k.Revoked.Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Tenant, describeKey(k), k.Created.Format(time.DateTime), revoked)
	}
	return tw.Flush()
}

// overlayKeysRevokeOptions are the flags and argument of `atma overlay keys revoke`.
type overlayKeysRevokeOptions struct {
	overlayOptions
	ID string
}

func newCmdOverlayKeysRevoke(f *Factory, runF func(context.Context, *overlayKeysRevokeOptions) error) *cobra.Command {
	opts := &overlayKeysRevokeOptions{}
	cmd := &cobra.Command{
		Use:     "revoke KEY-ID",
		Short:   "Revoke an API key: its token is refused from now on",
		Example: "  atma overlay keys revoke 3f9c0a1b2c3d",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return overlayKeysRevokeRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags(), false)
	hideUserFlag(cmd)
	return cmd
}

func overlayKeysRevokeRun(ctx context.Context, f *Factory, opts *overlayKeysRevokeOptions) error {
	env, err := f.openExisting(ctx, &opts.overlayOptions, false)
	if err != nil {
		return err
	}
	defer env.Close()
	if err := env.bank.Keys.Revoke(ctx, opts.ID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return usageError{fmt.Errorf("%w; `atma overlay keys list` shows the ids", err)}
		}
		return err
	}
	_, err = fmt.Fprintf(f.IO.Out, "revoked %s\n", opts.ID)
	return err
}

// describeKey says whom a key reaches and with which scopes.
func describeKey(k apikey.Key) string {
	users := "all users"
	if len(k.Users) > 0 {
		users = "users " + strings.Join(k.Users, ", ")
	}
	sc := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		sc[i] = string(s)
	}
	return users + "; " + strings.Join(sc, ", ")
}

// hideUserFlag hides --user on a command that has no user of its own.
func hideUserFlag(cmd *cobra.Command) {
	if err := cmd.Flags().MarkHidden("user"); err != nil {
		panic(err) // the flag was just added: a programming error
	}
}
