#!/usr/bin/python3
# A second, independent XMPP client for the chat-experience test (issue 16): slixmpp (Debian's
# python3-slixmpp) chats with the Presenter as a person would and runs an ad-hoc command
# (XEP-0050) with its data form (XEP-0004). Prints one JSON object per step on stdout.
# Usage: slixmpp-person.py JID PASSWORD HOST PORT PRESENTER_BARE_JID
import asyncio
import json
import sys

import slixmpp

JID, PASSWORD, HOST, PORT, PRESENTER = sys.argv[1:6]
COMMANDS = 'http://jabber.org/protocol/commands'


class Person(slixmpp.ClientXMPP):
    def __init__(self):
        super().__init__(JID, PASSWORD)
        for p in ('xep_0030', 'xep_0004', 'xep_0050', 'xep_0085'):
            self.register_plugin(p)
        self['feature_mechanisms'].unencrypted_plain = True  # loopback only, as the README says
        self.answers = asyncio.Queue()
        self.presenter_full = asyncio.get_event_loop().create_future()
        self.add_event_handler('session_start', self.start)
        self.add_event_handler('message', self.on_message)
        self.add_event_handler('presence_available', self.on_presence)
        self.add_event_handler('presence_subscribe', lambda p: self.send_presence(pto=p['from'].bare, ptype='subscribed'))

    def on_presence(self, p):
        if p['from'].bare == PRESENTER and not self.presenter_full.done():
            self.presenter_full.set_result(p['from'].full)

    def on_message(self, msg):
        # A line with chat state "composing" is "still working on it", not the answer.
        if msg['from'].bare == PRESENTER and msg['body'] and msg['chat_state'] != 'composing':
            self.answers.put_nowait(msg['body'])

    async def ask(self, text):
        self.send_message(mto=PRESENTER, mbody=text, mtype='chat')
        return await asyncio.wait_for(self.answers.get(), 30)

    async def start(self, _event):
        out = {}
        try:
            self.send_presence()
            self.send_presence(pto=PRESENTER, ptype='subscribe')
            await self.get_roster()
            full = await asyncio.wait_for(self.presenter_full, 10)
            out['hello'] = await self.ask('hello')
            out['tz'] = await self.ask('tz Asia/Kolkata')
            out['time'] = await self.ask('what time is it?')
            items = await self['xep_0030'].get_items(jid=full, node=COMMANDS)
            out['commands'] = [i[1] for i in items['disco_items']['items']]
            first = await self['xep_0050'].send_command(full, 'tz', action='execute')
            fields = first['command']['form']['fields']
            out['form_fields'] = list(fields.keys()) if hasattr(fields, 'keys') else [f['var'] for f in fields]
            form = self['xep_0004'].make_form(ftype='submit')
            form.add_field(var='zone', value='Europe/Oslo')
            done = await self['xep_0050'].send_command(full, 'tz', action='complete', payload=form, sessionid=first['command']['sessionid'])
            out['status'] = done['command']['status']
            out['note'] = done['command']['notes'][0][1] if done['command']['notes'] else ''
            # The form's answer also came as a chat line, on the same stream before the IQ result.
            out['chat_copy'] = []
            while not self.answers.empty():
                out['chat_copy'].append(self.answers.get_nowait())
            out['time_after_form'] = await self.ask('what time is it?')
        except Exception as err:  # reported, not hidden: the test fails on it
            out['error'] = f'{type(err).__name__}: {err}'
        print(json.dumps(out), flush=True)
        self.disconnect()


person = Person()
person.connect(address=(HOST, int(PORT)), use_ssl=False, force_starttls=False, disable_starttls=True)
person.loop.run_until_complete(person.disconnected)
